/** What the judge's unit tests of a phase share: no 429 at all, and the default error check. */
import { judgeStart } from '../../src/judge/bucket-start.js';
import type { EnvelopePhase } from '../../src/judge/envelope.js';
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
