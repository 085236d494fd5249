/**
 * compareRuns and a late generator: lateness inflates only its own run's latency,
 * so it comes off that run's p95 interval, and only where it could have made the change.
 */
import { describe, expect, it } from 'vitest';

import { Slice } from '../recorder/index.js';
import { compareRuns } from './compare.js';
import { formatComparison } from './compare-table.js';
import { type ComparedRun, exitWithComparison } from './comparison.js';
import { comparisonVerdict, type Summary } from './index.js';

/** 1,000 answers over 5 min of steady state, each `latencyMs` plus up to 99 ms. */
function steadyAt(latencyMs: number): Slice {
  const slice = new Slice({ fromMs: 0, toMs: 300_000 });
  for (let i = 0; i < 1000; i++) {
    const t = i * 300;
    const end = t + latencyMs + ((i * 37) % 100);
    slice.add({
      phase: 0,
      intendedAtMs: t,
      outcome: 'ok',
      firedAtMs: t,
      result: { status: 200, attempts: 1, lastSentAtMs: t, endAtMs: end, retryAfterS: [] },
    });
  }
  return slice;
}

/**
 * A run of one phase `busy` whose answers took about `latencyMs`; `lateMs`: its event loop's delay (p99 and max, wall
 * ms at k = 1), noted late by its verdict.
 */
function runAt(latencyMs: number, lateMs = 0): ComparedRun {
  const steady = steadyAt(latencyMs);
  const h = steady.latencyExcl429;
  const summary = {
    scenario: 'compared',
    startedAt: '2026-11-27T00:00:00.000Z',
    planIdentity: 'plan',
    timeScale: 1,
    environment: 'mock',
    target: { profile: 'nominal' },
    partial: false,
    stopped: null,
    counts: { planned: 1000, unsent: 0 },
    generator: { eventLoopDelayP99Ms: lateMs, eventLoopDelayMaxMs: lateMs },
    verdict: {
      notes:
        lateMs > 0
          ? [`phase busy: the generator was late (event-loop delay p99 ${lateMs}ms over the generator's budget)`]
          : [],
    },
    phases: [
      {
        name: 'busy',
        sent: 1000,
        errors: {},
        outcomes: { http_429: 0, http_504: 0, http_other: 0 },
        steadyLatencyMs: { p50: h.percentileMs(50), p95: h.percentileMs(95), p99: h.percentileMs(99) },
      },
    ],
  } as unknown as Summary;
  return { summary, steady: [steady] };
}

const p95Of = (c: ReturnType<typeof compareRuns>) =>
  c.phases[0]!.findings.filter((f) => f.figure === 'p95').map((f) => f.kind);

describe('compare: a p95 change beside a late generator', () => {
  it('on time: 1 s → 3 s is a regression, 3 s → 1 s an improvement', () => {
    expect(p95Of(compareRuns(runAt(1000), runAt(3000), { tolerance: 0.1 }))).toEqual(['regression']);
    expect(p95Of(compareRuns(runAt(3000), runAt(1000), { tolerance: 0.1 }))).toEqual(['improvement']);
  });

  it('a late baseline cannot make a regression: it stands, however late', () => {
    const c = compareRuns(runAt(1000, 30_000), runAt(3000), { tolerance: 0.1 });
    expect(p95Of(c)).toEqual(['regression']);
    expect(c.regression).toBe(true);
  });

  it('a late run keeps a regression far larger than its lateness, and says what was taken off', () => {
    const c = compareRuns(runAt(1000), runAt(3000, 500), { tolerance: 0.1 });
    expect(p95Of(c)).toEqual(['regression']);
    expect(c.phases[0]!.findings[0]!.text).toContain("even with the run's worst generator lateness (500ms) taken off");
  });

  it('a late run whose lateness could have made the regression: inconclusive, never no clear change', () => {
    const c = compareRuns(runAt(1000), runAt(3000, 2500), { tolerance: 0.1 });
    expect(p95Of(c)).toEqual(['inconclusive']);
    expect(c).toMatchObject({ regression: false, inconclusive: true });
    expect(c.phases[0]!.findings[0]!.text).toMatch(
      /above the baseline's by more than 10 %, but not with the tool's worst lateness \(2\.50s of model time\) taken off the run's interval: it no longer lies above by more than 10 %: could be the tool's: the run's generator was late \(its verdict says so\)$/,
    );
    expect(comparisonVerdict(c)).toBe("INCONCLUSIVE: 1 change for the worse the tool's own lateness could have made");
    expect(exitWithComparison(0, c)).toBe(5);
    expect(exitWithComparison(1, c)).toBe(1);
  });

  it('improvements the other way round: a late baseline can fake one, a late run cannot', () => {
    expect(p95Of(compareRuns(runAt(3000, 2500), runAt(1000), { tolerance: 0.1 }))).toEqual([]);
    expect(p95Of(compareRuns(runAt(3000), runAt(1000, 30_000), { tolerance: 0.1 }))).toEqual(['improvement']);
  });
});

describe('compare: a p95 change beside an embedded mock that fell behind', () => {
  /** The run at k = 20 whose mock stalled: `modelMs` is what its stall could add to a latency, as run.json says. */
  function behindAt(latencyMs: number, modelMs: number): ComparedRun {
    const run = runAt(latencyMs);
    const behind = `The embedded mock fell behind by up to ${20 + modelMs / 20}ms (wall), which could add ${modelMs}ms of model time to a latency — not the service's: a result it could have caused was checked again without it, else made inconclusive, never counted as a finding.`;
    const summary = {
      ...run.summary,
      timeScale: 20,
      generator: {
        eventLoopDelayP99Ms: 0,
        eventLoopDelayMaxMs: 0,
        mockLag: { p99WallMs: 5, maxWallMs: 20 + modelMs / 20, windowWallMs: 20, modelMs },
      },
      verdict: { ...run.summary.verdict, notes: [behind] },
    } as unknown as Summary;
    return { summary, steady: run.steady };
  }

  it('a regression the mock could have made reads inconclusive (exit 5), never no clear change', () => {
    const c = compareRuns(runAt(1000), behindAt(3000, 2500), { tolerance: 0.1 });
    expect(p95Of(c)).toEqual(['inconclusive']);
    expect(c).toMatchObject({ regression: false, inconclusive: true });
    expect(c.phases[0]!.findings[0]!.text).toContain(
      "(2.50s of model time) taken off the run's interval: it no longer lies above by more than 10 %: could be the tool's: the embedded mock fell behind (the run's verdict says so)",
    );
    const text = formatComparison(c, 'base', 'run', 5);
    expect(text).toContain('  inconclusive: busy: p95 ');
    expect(text).toContain(
      "result: INCONCLUSIVE: 1 change for the worse the tool's own lateness could have made — exit 5",
    );
    expect(text).not.toContain('no clear change');
  });

  it('no change at all beside a mock that fell behind is no change: exit 0', () => {
    const c = compareRuns(runAt(1000), behindAt(1000, 2500), { tolerance: 0.1 });
    expect(p95Of(c)).toEqual([]);
    expect(c).toMatchObject({ regression: false, inconclusive: false });
    expect(exitWithComparison(0, c)).toBe(0);
  });

  it('a regression far larger than what the mock could add stands', () => {
    expect(p95Of(compareRuns(runAt(1000), behindAt(3000, 200), { tolerance: 0.1 }))).toEqual(['regression']);
  });
});
