import { describe, expect, it } from 'vitest';

import { newStallCells, STALL_TICK_MS, STALL_TOLERANCE_MS, stalledMs, StallMeter } from './stall-meter.js';

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
