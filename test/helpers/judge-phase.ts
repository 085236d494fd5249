/** What the judge's unit tests of a phase share: no 429 at all, the default error check, one phase's error check. */
import { judgeStart } from '../../src/judge/bucket-start.js';
import type { Check } from '../../src/judge/check.js';
import type { EnvelopePhase } from '../../src/judge/envelope.js';
import { evaluateVerdict } from '../../src/judge/verdict.js';
import type { GeneratorHealth, PhaseInput } from '../../src/judge/verdict-input.js';
import type { Slice } from '../../src/recorder/index.js';
import { parseErrorCheck, type Threshold } from '../../src/scenario/index.js';

/** A phase's envelope with no 429 in it. */
export const NO_429: EnvelopePhase = {
  http429: 0,
  findings: 0,
  edge: 0,
  ifFullAtStart: 0,
  maxTokensAt429: null,
  marginTokens: 2,
  start: judgeStart({ known: 'nothing' }, 501, 100),
};

/** The default error check: errors under 1 % of the requests. */
export const ERRORS = parseErrorCheck('rate < 1%') as Threshold;

/**
 * The error check of one phase (no bands, no thresholds of its own, the default error check) whose every slice is
 * `slice`, judged with the client's cap `inFlight` and `generator`.
 */
export function phaseErrorCheck(
  slice: Slice,
  planned: number,
  inFlight: NonNullable<PhaseInput['inFlight']>,
  generator: GeneratorHealth,
): Check {
  return evaluateVerdict({
    phases: [
      {
        name: 'steady',
        bands: [],
        planned,
        inFlight,
        steady: slice,
        all: slice,
        envelope: NO_429,
        thresholds: [],
        errorCheck: ERRORS,
      },
    ],
    documentedTargets: false,
    generator,
  }).checks.find((c) => c.id === 'error_rate')!;
}
