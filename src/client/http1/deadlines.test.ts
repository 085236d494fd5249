import { afterEach, describe, expect, it } from 'vitest';

import { Deadlines, type Expiring } from './deadlines.js';

const deadlines = new Deadlines();
afterEach(() => deadlines.clear());

const entry = (deadlineAt: number): Expiring & { expired: boolean } => ({
  deadlineAt,
  settled: false,
  expired: false,
  expire() {
    this.expired = true;
    this.settled = true;
  },
});

describe('Deadlines', () => {
  it('lets go of entries settled in the order they were added, long before their deadline', () => {
    // A 15 s timeout at 3,000 answers a second: 45,000 settled entries would wait for the first deadline.
    const far = performance.now() + 60_000;
    let previous: Expiring | undefined;
    for (let i = 0; i < 5000; i++) {
      const e = entry(far + i);
      deadlines.add(e);
      if (previous !== undefined) previous.settled = true;
      previous = e;
    }
    // Referenced settled entries live long enough to be promoted to V8's old space: a few dozen, not a second's worth.
    expect(deadlines.held).toBeLessThanOrEqual(2);
    expect(deadlines.referenced).toBeLessThanOrEqual(130);
    expect(deadlines.pending()).toEqual([previous]);
  });

  it('lets go of settled entries at once with many in flight (they would live long enough to be promoted)', () => {
    // 500 in flight: each new request's add comes as the oldest one settles.
    const far = performance.now() + 60_000;
    const inFlight: Expiring[] = [];
    for (let i = 0; i < 5000; i++) {
      const e = entry(far + i);
      deadlines.add(e);
      inFlight.push(e);
      if (inFlight.length > 500) inFlight.shift()!.settled = true;
    }
    expect(deadlines.referenced).toBeLessThanOrEqual(502);
    expect(deadlines.pending()).toEqual(inFlight);
  });

  it('keeps every entry not settled, and still expires one whose deadline passed', async () => {
    const soon = entry(performance.now() + 5);
    const settledFirst = entry(performance.now() + 1);
    deadlines.add(settledFirst);
    deadlines.add(soon);
    settledFirst.settled = true;
    deadlines.add(entry(performance.now() + 60_000));
    expect(deadlines.held).toBe(2);
    for (let i = 0; i < 200 && !soon.expired; i++) await new Promise((r) => setTimeout(r, 5));
    expect(soon.expired).toBe(true);
  });
});

describe('Deadlines stretched by the tool’s own stalls', () => {
  /** An entry that may be stretched up to `latestIn` ms from now. */
  const stretchable = (dueIn: number, latestIn: number): Expiring & { expired: boolean } => ({
    ...entry(performance.now() + dueIn),
    latestAt: performance.now() + latestIn,
  });

  const waitFor = async (done: () => boolean): Promise<void> => {
    for (let i = 0; i < 400 && !done(); i++) await new Promise((r) => setTimeout(r, 5));
  };

  it('gives an entry the wall time the tool stalled while it waited, and expires it once no more stall comes', async () => {
    let stalls = 0;
    const d = new Deadlines(() => stalls);
    const e = stretchable(5, 60_000);
    d.add(e);
    stalls = 40; // the mock's thread was held up 40 ms meanwhile
    const firstDue = e.deadlineAt;
    await waitFor(() => e.deadlineAt !== firstDue || e.expired);
    expect(e.expired).toBe(false);
    expect(e.deadlineAt).toBeCloseTo(firstDue + 40, 6);
    await waitFor(() => e.expired);
    expect(e.expired).toBe(true);
    d.clear();
  });

  it('never stretches past latestAt, nor an entry without one', async () => {
    let stalls = 0;
    const d = new Deadlines(() => stalls);
    const capped = stretchable(5, 20);
    const plain = entry(performance.now() + 5);
    d.add(capped);
    d.add(plain);
    stalls = 10_000;
    await waitFor(() => capped.expired && plain.expired);
    expect(plain.expired).toBe(true);
    expect(capped.expired).toBe(true);
    expect(capped.deadlineAt).toBeLessThanOrEqual(capped.latestAt!);
    d.clear();
  });

  it('counts only the stalls after the entry was added', async () => {
    const stalls = 5000;
    const d = new Deadlines(() => stalls);
    const e = stretchable(5, 60_000);
    const due = e.deadlineAt;
    d.add(e);
    await waitFor(() => e.expired);
    expect(e.expired).toBe(true);
    expect(e.deadlineAt).toBe(due);
    d.clear();
  });
});
