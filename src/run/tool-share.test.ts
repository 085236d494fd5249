import { describe, expect, it } from 'vitest';

import { newStallCells, STALL_GRAIN_MS, TimeScale } from '../core/index.js';
import { ToolShare } from './tool-share.js';

/** Two stall meters whose totals a test sets, read on a wall clock it moves; a run at k = 10 with a 20 ms window. */
function setUp() {
  const own = newStallCells();
  const mock = newStallCells();
  let wallMs = 1000;
  const scale = TimeScale.of(10, 'k');
  // The meters ticked just now: no stall going on.
  const tick = (): void => {
    own[1] = wallMs;
    mock[1] = wallMs;
  };
  tick();
  // The mock's meter counts each stall's part past its model's lag window.
  mock[3] = 20;
  const share = new ToolShare({
    scale,
    timeoutMs: 15_000,
    nowMs: () => scale.toModelMs(wallMs - 1000),
    own,
    mock,
    wallNowMs: () => wallMs,
  });
  share.start(0);
  share.setWindow(20);
  /** Moves the wall clock on by `ms`, the meters ticking. */
  const pass = (ms: number): void => {
    wallMs += ms;
    tick();
  };
  return { own, mock, share, pass };
}

describe("ToolShare: each request's bound on the tool's share of its latency", () => {
  it('no stall: its send lag and the meters’ grain, once', () => {
    const { share, pass } = setUp();
    pass(300);
    // Due at 0, sent 30 ms of model time late (3 ms wall), answered at 3 s of model time.
    expect(share.boundMs({ intendedAtMs: 0, firedAtMs: 30 })).toBeCloseTo(3 + 2 * STALL_GRAIN_MS, 6);
  });

  it("a stall of the mock's thread in its life: once, and k times its part past the lag window", () => {
    const { mock, share, pass } = setUp();
    pass(100);
    // The mock stood still 400 ms more than its meter's grain: a gap of 412 ms between its ticks, 392 past the window.
    mock[0] = 400;
    mock[2] = 392;
    pass(200);
    const onceMs = STALL_GRAIN_MS + 400 + STALL_GRAIN_MS;
    expect(share.boundMs({ intendedAtMs: 0, firedAtMs: 0 })).toBeCloseTo(onceMs + 10 * 392, 6);
  });

  it('a stall that ended before the request was due is not its: only the grain', () => {
    const { mock, share, pass } = setUp();
    pass(100);
    mock[0] = 400;
    mock[2] = 392;
    pass(100);
    // An answer now keeps a sample of the totals (model time 2 s), after the stall.
    share.boundMs({ intendedAtMs: 0, firedAtMs: 0 });
    pass(100);
    expect(share.boundMs({ intendedAtMs: 2000, firedAtMs: 2000 })).toBeCloseTo(2 * STALL_GRAIN_MS, 6);
  });

  it('a stall still going on when the answer is read counts', () => {
    const { mock, share, pass } = setUp();
    pass(100);
    // The mock's meter last ticked 112 ms ago: 100 ms of stall beyond its grain and 92 past the window, not yet
    // counted in its totals.
    mock[1] = mock[1]! - 112;
    const bound = share.boundMs({ intendedAtMs: 0, firedAtMs: 0 })!;
    expect(bound).toBeCloseTo(2 * STALL_GRAIN_MS + 100 + 10 * 92, 6);
  });

  it('a send later than the lag window counts k times past it (its arrival entered the model late)', () => {
    const { share, pass } = setUp();
    pass(300);
    // 500 ms of model time late: 50 ms of wall time, 30 past the window.
    expect(share.boundMs({ intendedAtMs: 0, firedAtMs: 500 })).toBeCloseTo(50 + 2 * STALL_GRAIN_MS + 10 * 30, 6);
  });

  it('a request never sent has no bound', () => {
    expect(setUp().share.boundMs({ intendedAtMs: 0 })).toBeUndefined();
  });
});
