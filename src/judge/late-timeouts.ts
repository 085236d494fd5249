/**
 * Timeouts the embedded mock could have caused. At time scale k > 1 a timeout is judged on the attempt's model time
 * (src/client/attempt-deadline.ts), whose service part the mock's own stall inflates: the arrivals it read late
 * bunch in model time and queue (src/mock/loop-lag.ts). So while the mock fell behind, a timed-out attempt may be
 * the tool's, not the service's: an error check that fails only with the timeouts is inconclusive, never a fail.
 * Only when the mock fell behind by the verdict's rule (its delay's p99 outlasted its window): one stall holds the few
 * arrivals it came upon, never a share of the run's requests large enough to make a failing error rate.
 */
import type { Slice } from '../recorder/index.js';
import type { Threshold } from '../scenario/index.js';
import { type Check, compare } from './check.js';
import { mockBehindText, mockFellBehind } from './generator-budget.js';
import { countOf } from './threshold-check.js';
import type { GeneratorHealth } from './verdict-input.js';

export function lateTimeoutsCheck(check: Check, slice: Slice, t: Threshold, generator: GeneratorHealth): Check {
  const timeouts = slice.outcomes.timeout;
  const mock = generator.mock;
  if (check.status !== 'fail' || timeouts === 0 || mock === undefined || !mockFellBehind(mock)) return check;
  if (t.kind === 'percentile' || t.kind === 'phi' || t.of !== 'errors') return check;
  const { count, base } = countOf(slice, 'errors');
  const rest = count - timeouts;
  const passesWithout = t.kind === 'count' ? compare(rest, t.op, t.count) : compare(rest / base, t.op, t.fraction);
  if (!passesWithout) return check;
  return {
    ...check,
    status: 'inconclusive',
    reason: `${check.reason}, but ${timeouts} of them timed out while ${mockBehindText(mock)}; without them it would pass`,
  };
}
