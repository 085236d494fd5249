/**
 * summary.json's `phi`: what became of the known PHI of a deid run's documents — planted, found by identification,
 * removed by obfuscation, left in clear (whole or in part) — overall, per phase, by kind, by length class and for the
 * items that straddle a cut; with the leak rate's 95 % bounds. Counts only, never the PHI. Null when no document
 * had ground truth: without it, what identification missed cannot be known.
 */
import { leaked, type RecallCounts } from '../phi/index.js';
import type { DocumentSink } from './documents.js';
import { lowerBound95, upperBound95 } from './phi-bound.js';

const round6 = (v: number): number => Math.round(v * 1e6) / 1e6;

/**
 * Recall (found ÷ planted) and the leak rate (leaked ÷ planted) with its 95 % bounds; null without items. The bounds
 * are kept whole: rounded here and again where printed, they would not read as the verdict's reason prints them.
 */
function recallFigures(c: RecallCounts) {
  const n = c.planted;
  const x = leaked(c);
  return {
    leaked: x,
    recall: n === 0 ? null : round6(c.found / n),
    leakRate: n === 0 ? null : round6(x / n),
    leakRateLower95: n === 0 ? null : lowerBound95(x, n),
    leakRateUpper95: n === 0 ? null : upperBound95(x, n),
  };
}

export function phiSummary(phaseNames: readonly string[], documents: DocumentSink) {
  const all = documents.overall.phi;
  if (all.known === 0) return null;
  const v = all.verified;
  return {
    definition:
      'Known PHI items (ground truth) of the documents delivered whole (obfuscated with a 2xx, no piece cut at the output cap): found = identification covered every letter and digit; removed = none of it shows in the output; partlyInClear / inClear = some / all of it shows; leaked = partlyInClear + inClear. Items of the other documents are in notVerified, not judged. Without ground truth, what identification missed cannot be known.',
    documents: { withGroundTruth: all.known, deliveredWhole: all.verifiedDocuments },
    overall: { ...v.overall, ...recallFigures(v.overall) },
    byPhase: documents.phases.map((p, i) => ({
      name: phaseNames[i]!,
      ...p.phi.verified.overall,
      ...recallFigures(p.phi.verified.overall),
      notVerified: { ...p.phi.notVerified },
    })),
    byKind: v.byKind,
    byLengthClass: v.byLengthClass,
    straddling: { ...v.straddling, ...recallFigures(v.straddling) },
    method: v.method,
    notVerified: { ...all.notVerified },
  };
}
