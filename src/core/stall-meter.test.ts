import { describe, expect, it } from 'vitest';

import {
  newStallCells,
  STALL_TICK_MS,
  STALL_TOLERANCE_MS,
  stalledBeyondWindowMs,
  stalledMs,
  StallMeter,
} from './stall-meter.js';

/** A meter on a clock the test moves; its ticks are called by hand. */
function meterAt(startMs: number): { meter: StallMeter; setNow: (ms: number) => void } {
  let now = startMs;
  const meter = new StallMeter(newStallCells(), () => now);
  return { meter, setNow: (ms) => (now = ms) };
}

describe('StallMeter', () => {
  it('counts nothing for ticks on time or within the tolerance', () => {
    const cells = newStallCells();
    const m = new StallMeter(cells, () => 0);
    m.tick(0);
    m.tick(STALL_TICK_MS);
    m.tick(2 * STALL_TICK_MS + STALL_TOLERANCE_MS);
    expect(cells[0]).toBe(0);
  });

  it("adds each tick's lateness beyond the tick and its tolerance", () => {
    const cells = newStallCells();
    const m = new StallMeter(cells, () => 0);
    m.tick(0);
    m.tick(1500); // a 1.5 s stall
    expect(cells[0]).toBeCloseTo(1500 - STALL_TICK_MS - STALL_TOLERANCE_MS, 6);
    m.tick(1510);
    m.tick(1810);
    expect(cells[0]).toBeCloseTo(1500 + 300 - 2 * (STALL_TICK_MS + STALL_TOLERANCE_MS), 6);
  });

  it('lets a reader see a stall still going on, and the total never goes back when the late tick comes', () => {
    const { meter, setNow } = meterAt(100);
    meter.start(); // its first tick is now: 100
    const during = stalledMs(meter.cells, 1100);
    expect(during).toBeCloseTo(1000 - STALL_TICK_MS - STALL_TOLERANCE_MS, 6);
    setNow(1200);
    meter.tick(1200);
    meter.stop();
    expect(stalledMs(meter.cells, 1200)).toBeGreaterThanOrEqual(during);
  });

  it('reads no stall going on once stopped, and keeps what it counted', () => {
    const cells = newStallCells();
    const m = new StallMeter(cells, () => 0);
    m.tick(0);
    m.tick(512);
    m.stop();
    expect(stalledMs(cells, 1_000_000)).toBeCloseTo(500, 6);
    expect(stalledMs(newStallCells(), 1_000_000)).toBe(0);
  });
});

describe('StallMeter: by how much its stalls outlasted a window', () => {
  it('adds each gap between ticks beyond the window, one stall at a time, once the window is set', () => {
    const cells = newStallCells();
    const m = new StallMeter(cells, () => 0);
    m.tick(0);
    m.tick(500); // before the window is set: not counted beyond it
    m.setWindow(20);
    m.tick(510);
    m.tick(525); // a gap of 15 ms: within the window
    m.tick(555); // 30 ms: 10 beyond it
    m.tick(955); // 400 ms: 380 beyond it
    expect(stalledBeyondWindowMs(cells, 955)).toBeCloseTo(390, 6);
    // Several short stalls count only what each had past the window, not their sum less one window.
    expect(cells[0]).toBeGreaterThan(390);
  });

  it('sees a stall still going on, and never goes back when its late tick comes', () => {
    const cells = newStallCells();
    const m = new StallMeter(cells, () => 0);
    m.setWindow(20);
    m.tick(0);
    expect(stalledBeyondWindowMs(cells, 300)).toBeCloseTo(280, 6);
    m.tick(400);
    expect(stalledBeyondWindowMs(cells, 400)).toBeCloseTo(380, 6);
  });

  it('counts nothing before a window is set, or when the meter does not tick', () => {
    const cells = newStallCells();
    expect(stalledBeyondWindowMs(cells, 1000)).toBe(0);
    const m = new StallMeter(cells, () => 0);
    m.tick(0);
    expect(stalledBeyondWindowMs(cells, 1000)).toBe(0);
  });
});
