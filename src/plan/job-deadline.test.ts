import { describe, expect, it } from 'vitest';

import type { Plan } from './build-plan.js';
import { JOB_DEADLINE_MARGIN_S, jobDeadlineS } from './job-deadline.js';

const planOf = (durationMs: number, on429: Plan['scenario']['on429'], timeoutMs = 15_000, timeScale = 1): Plan =>
  ({ durationMs, timeScale, scenario: { on429, timeoutMs } }) as unknown as Plan;
const RECORD = { policy: 'record', maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 30_000 } as const;

describe('jobDeadlineS', () => {
  it('the lead to the start, the plan, its last request and the margin, rounded up to the minute', () => {
    expect(jobDeadlineS(planOf(3_600_000, RECORD), 0)).toBe(Math.ceil((3600 + 15 + JOB_DEADLINE_MARGIN_S) / 60) * 60);
    expect(jobDeadlineS(planOf(3_600_000, RECORD), 180_000) - jobDeadlineS(planOf(3_600_000, RECORD), 0)).toBe(180);
    // A start in the past (or now) adds nothing.
    expect(jobDeadlineS(planOf(3_600_000, RECORD), -60_000)).toBe(jobDeadlineS(planOf(3_600_000, RECORD), 0));
  });

  it('with retries, every attempt of the last request and the waits between them', () => {
    const retry = { ...RECORD, policy: 'retry' } as const;
    expect(jobDeadlineS(planOf(0, retry), 0)).toBe(Math.ceil((4 * 15 + 3 * 30 + JOB_DEADLINE_MARGIN_S) / 60) * 60);
  });

  it('a time-scaled plan runs k times fast', () => {
    expect(jobDeadlineS(planOf(7 * 86_400_000, RECORD, 15_000, 20), 0)).toBe(
      Math.ceil(((7 * 86_400 + 15) / 20 + JOB_DEADLINE_MARGIN_S) / 60) * 60,
    );
  });
});
