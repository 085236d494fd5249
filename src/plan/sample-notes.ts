/**
 * Whether each percentile check will have the sample it needs to be decided. A percentile is judged on confidence
 * bounds from order statistics (src/judge/quantile-interval.ts): with n samples the q-quantile has an upper bound at
 * 97.5 % only when q^n ≤ 2.5 %, and a lower bound only when (1 − q)^n ≤ 2.5 %. Below those counts a side does not
 * exist, whatever the latencies: `p(95) < target` cannot pass on fewer than 72 samples, `p(99) < target` on fewer
 * than 368. The plan knows each phase's steady sample (requests, or in mode deid documents, after the warm-up), so
 * `plan` can say so before anything is sent, rather than the run ending inconclusive. A 429 is no latency sample: with
 * on429 record, the requests the bucket is predicted to refuse (predicted-429.ts) are taken out of the count.
 */
import type { Threshold } from '../scenario/index.js';
import type { Plan } from './build-plan.js';
import { effectiveLimits } from './limits.js';
import { predict429s } from './predicted-429.js';
import { positionOfSeq } from './shard.js';
import { holdsDocument } from './shard-documents.js';

/** Each bound is taken at 97.5 % on its own, as the verdict takes it. */
const ONE_SIDED_TAIL = 0.025;

/** The fewest samples whose q-quantile has a bound on `side`: the least n with (q or 1 − q)^n ≤ the tail. */
export function minimumSamplesFor(percentile: number, side: 'lower' | 'upper'): number {
  const p = side === 'upper' ? percentile / 100 : 1 - percentile / 100;
  let n = Math.max(1, Math.floor(Math.log(ONE_SIDED_TAIL) / Math.log(p)));
  while (n > 1 && p ** (n - 1) <= ONE_SIDED_TAIL) n--;
  while (p ** n > ONE_SIDED_TAIL) n++;
  return n;
}

/** What a check on too few samples can still conclude, in words. */
function whatIsLeft(t: Threshold & { kind: 'percentile' }, n: number): string {
  const upper = n >= minimumSamplesFor(t.percentile, 'upper');
  const lower = n >= minimumSamplesFor(t.percentile, 'lower');
  if ((!upper && !lower) || t.op === '==') return 'it can only be inconclusive';
  const under = t.op === '<' || t.op === '<=';
  // `p < target` passes on the upper bound and fails on the lower; `p > target` the other way round.
  return (under ? upper : lower) ? 'it can pass but not fail' : 'it can fail but not pass';
}

/** Each phase's steady documents (mode deid): those intended after its warm-up, as the verdict's stages count them. */
function steadyDocuments(plan: Plan): number[] {
  const counts = plan.phases.map(() => 0);
  const docs = plan.documents;
  if (docs === undefined) return counts;
  let phase = 0;
  let phaseFirst = 0;
  for (let d = 0; d < docs.count; d++) {
    if (!holdsDocument(plan, d)) continue;
    // Its first piece's position among this plan's arrivals (a deid shard holds some documents only).
    const position = positionOfSeq(plan, docs.firstSeq[d]!);
    while (phase < plan.phases.length && position >= phaseFirst + plan.phases[phase]!.arrivalsMs.length) {
      phaseFirst += plan.phases[phase]!.arrivalsMs.length;
      phase++;
    }
    const p = plan.phases[phase];
    if (p === undefined) break;
    if (p.arrivalsMs[position - phaseFirst]! >= p.startMs + p.warmupMs) counts[phase]!++;
  }
  return counts;
}

/**
 * One sentence per phase and percentile threshold whose steady sample is smaller than the count both of its bounds
 * need (so that it can end either way), naming the phase, the threshold, n and the count needed.
 */
export function sampleNotes(plan: Plan): string[] {
  const s = plan.scenario;
  const documents = steadyDocuments(plan);
  // Retried 429s may still end answered: only recorded ones are surely out of the sample.
  const refused = s.on429.policy === 'record' ? predict429s(plan, effectiveLimits(s)).map((p) => p.steadyRefused) : [];
  const notes: string[] = [];
  plan.phases.forEach((p, i) => {
    if (p.arrivalsMs.length === 0) return;
    for (const t of [...s.thresholds.all, ...(s.thresholds.byPhase.get(p.name) ?? [])]) {
      if (t.kind !== 'percentile') continue;
      const sides = [minimumSamplesFor(t.percentile, 'upper'), minimumSamplesFor(t.percentile, 'lower')];
      // `==` is compared as measured once either bound exists; an inequality needs both to end either way.
      const needed = t.op === '==' ? Math.min(...sides) : Math.max(...sides);
      const steady = t.stage === undefined ? p.bands.reduce((sum, b) => sum + b.steadyArrivals, 0) : documents[i]!;
      const less429 = t.stage === undefined ? (refused[i] ?? 0) : 0;
      const n = steady - less429;
      if (n >= needed) continue;
      const what =
        t.stage === 'document'
          ? 'documents'
          : t.stage === 'obfuscation'
            ? 'obfuscation calls (one a document)'
            : 'requests';
      const of429 =
        less429 === 0
          ? ''
          : ` answered other than 429 (${steady} after the warm-up, less the ${less429} the rate limit is predicted to refuse from a full bucket: see the predicted 429s)`;
      notes.push(
        `phase ${p.name}: threshold "${t.source.trim()}" will have at most ${n} ${what}${less429 === 0 ? ' after the warm-up' : of429}, fewer than the ${needed} its p(${t.percentile}) needs to be decided: ${whatIsLeft(t, n)} (${less429 === 0 ? 'lengthen the phase, raise its rate or shorten its warm-up' : 'lengthen the phase or lower its rate toward the sustained rate, so that more are answered'})`,
      );
    }
  });
  return notes;
}
