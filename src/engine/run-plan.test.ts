import { describe, expect, it } from 'vitest';

import type { IdentifyFn, RequestResult } from '../client/api.js';
import { ManualClock } from '../core/clock.js';
import { buildPlan } from '../plan/index.js';
import { parseScenario } from '../scenario/index.js';
import { type EngineResult, type RequestEvent, runPlan } from './run-plan.js';

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Moves the manual clock forward in steps, letting the engine's promises settle at each. */
async function drive(clock: ManualClock, toMs: number, stepMs = 50): Promise<void> {
  for (let t = clock.nowMs(); t <= toMs; t += stepMs) {
    clock.advanceTo(t);
    await flush();
  }
}

/** A client whose every request takes `latencyMs` on the clock and succeeds, unless `cancel` aborts it first. */
function slowClient(clock: ManualClock, latencyMs: number, cancel: AbortSignal): IdentifyFn {
  return () =>
    new Promise<RequestResult>((resolve) => {
      const sentAtMs = clock.nowMs();
      const end = (outcome: 'ok' | 'abandoned') =>
        resolve({
          outcome,
          ...(outcome === 'ok' ? { status: 200 } : {}),
          attempts: 1,
          sentAtMs,
          lastSentAtMs: sentAtMs,
          endAtMs: clock.nowMs(),
          retryAfterS: [],
          tries: [],
        });
      const stopTimer = clock.setTimer(sentAtMs + latencyMs, () => end('ok'));
      cancel.addEventListener('abort', () => {
        stopTimer();
        end('abandoned');
      });
    });
}

function planOf(phases: string, timeScale = 1) {
  return buildPlan(parseScenario(`name: t\ndescription: d\nphases:\n${phases}`, 't.yaml'), { timeScale });
}

function start(
  clock: ManualClock,
  overrides: { latencyMs?: number; maxInFlight?: number; phases?: string; drainMs?: number } = {},
) {
  const events: RequestEvent[] = [];
  const controller = new AbortController();
  const cancel = new AbortController();
  const plan = planOf(overrides.phases ?? '  - { name: a, duration: 6s, rpm: 100 }\n');
  const done: Promise<EngineResult> = runPlan({
    plan,
    identify: slowClient(clock, overrides.latencyMs ?? 10_000, cancel.signal),
    cancelInFlight: () => cancel.abort(),
    payload: (seq) => `note ${seq}`,
    clock,
    maxInFlight: overrides.maxInFlight ?? 100,
    signal: controller.signal,
    drainMs: overrides.drainMs ?? 60_000,
    onEvent: (e) => events.push(e),
  });
  return { events, controller, done, plan };
}

describe('runPlan (open model)', () => {
  it('fires every arrival at its planned time although each response takes 10 s', async () => {
    const clock = new ManualClock();
    const { events, done } = start(clock);
    await drive(clock, 20_000);
    const result = await done;
    expect(result).toMatchObject({ fired: 10, dropped: 0, unsent: 0, abandoned: 0, interrupted: false });
    expect(events).toHaveLength(10);
    for (const e of events.sort((a, b) => a.seq - b.seq)) {
      expect(e.firedAtMs).toBe(e.intendedAtMs);
      expect(e.result!.endAtMs - e.intendedAtMs).toBe(10_000);
    }
    expect(events.map((e) => e.intendedAtMs)).toEqual([0, 600, 1200, 1800, 2400, 3000, 3600, 4200, 4800, 5400]);
  });

  it('drops arrivals beyond the in-flight cap and counts them, without queueing', async () => {
    const clock = new ManualClock();
    const { events, done } = start(clock, { maxInFlight: 3 });
    await drive(clock, 20_000);
    const result = await done;
    // "Fired" counts the requests handed to the client: the dropped ones were never sent.
    expect(result).toMatchObject({ fired: 3, dropped: 7, unsent: 0 });
    expect(events.filter((e) => e.outcome === 'dropped').map((e) => e.seq)).toEqual([3, 4, 5, 6, 7, 8, 9]);
    expect(events.filter((e) => e.outcome === 'ok')).toHaveLength(3);
  });

  it('fires overdue arrivals at once when it was late, keeping their intended times (send lag shows)', async () => {
    const clock = new ManualClock();
    const { events, done } = start(clock, { latencyMs: 100 });
    await flush();
    clock.advanceTo(2000); // the generator "stalls" for 2 s: arrivals due at 0.6, 1.2 and 1.8 s are late
    await flush();
    await drive(clock, 10_000);
    await done;
    const late = events.filter((e) => e.intendedAtMs > 0 && e.intendedAtMs < 2000).sort((a, b) => a.seq - b.seq);
    expect(late.map((e) => [e.intendedAtMs, e.firedAtMs])).toEqual([
      [600, 2000],
      [1200, 2000],
      [1800, 2000],
    ]);
  });

  it('fires every arrival due at a wake in one batch, in plan order, with their intended times, and none early', async () => {
    const clock = new ManualClock();
    let timers = 0;
    const counting = {
      nowMs: () => clock.nowMs(),
      setTimer: (atMs: number, fn: () => void) => (timers++, clock.setTimer(atMs, fn)),
    };
    const events: RequestEvent[] = [];
    const done = runPlan({
      plan: planOf('  - { name: a, duration: 6s, rpm: 100 }\n'),
      identify: slowClient(clock, 100, new AbortController().signal),
      cancelInFlight: () => {},
      payload: (seq) => `note ${seq}`,
      clock: counting,
      maxInFlight: 100,
      signal: new AbortController().signal,
      drainMs: 1000,
      onEvent: (e) => events.push(e),
    });
    await flush();
    const fired = (): [number, number, number | undefined][] => events.map((e) => [e.seq, e.intendedAtMs, e.firedAtMs]);
    expect(timers).toBe(1); // arrival 0 is due at once, fired without a wait; then one wait, to 600
    clock.advanceTo(2999.999); // one wake: the arrivals due at 600, 1200, 1800 and 2400, not the one at 3000
    await flush();
    clock.advanceTo(3000);
    await flush();
    // One timer per wake: to 600 (woken at 2999.999 for the batch), to 3000, and now to 3600.
    expect(timers).toBe(3);
    await drive(clock, 10_000);
    expect(await done).toMatchObject({ fired: 10, dropped: 0 });
    expect(
      fired()
        .sort((a, b) => a[0] - b[0])
        .slice(0, 6),
    ).toEqual([
      [0, 0, 0],
      [1, 600, 2999.999],
      [2, 1200, 2999.999],
      [3, 1800, 2999.999],
      [4, 2400, 2999.999],
      [5, 3000, 3000],
    ]);
    for (const e of events) expect(e.firedAtMs!).toBeGreaterThanOrEqual(e.intendedAtMs);
  });

  it('stops firing when aborted, awaits what is in flight, and counts the unsent', async () => {
    const clock = new ManualClock();
    const { events, done, controller } = start(clock, { latencyMs: 1000 });
    await drive(clock, 1300); // arrivals at 0, 600, 1200 fired
    controller.abort();
    await drive(clock, 5000);
    const result = await done;
    expect(result).toMatchObject({ fired: 3, unsent: 7, abandoned: 0, interrupted: true });
    expect(events.filter((e) => e.outcome === 'ok')).toHaveLength(3);
    // Every planned request has its event, the unsent ones with their intended times.
    expect(events.map((e) => e.seq).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(events.filter((e) => e.outcome === 'unsent').map((e) => [e.seq, e.intendedAtMs, e.firedAtMs])).toEqual(
      [3, 4, 5, 6, 7, 8, 9].map((i) => [i, i * 600, undefined]),
    );
  });

  it('gives up on in-flight requests after the drain time and says how many it abandoned', async () => {
    const clock = new ManualClock();
    const { done, controller, events } = start(clock, { latencyMs: 100_000, drainMs: 2000 });
    await drive(clock, 700);
    controller.abort();
    await drive(clock, 5000);
    expect(await done).toMatchObject({ fired: 2, unsent: 8, abandoned: 2, interrupted: true });
    // The cancelled requests still have their lines: counts reconcile, interrupted or not.
    expect(
      events
        .filter((e) => e.outcome === 'abandoned')
        .map((e) => e.seq)
        .sort(),
    ).toEqual([0, 1]);
    expect(events).toHaveLength(10);
  });

  it('starts the drain for a stop that comes after the last arrival, while waiting for the final answers', async () => {
    const clock = new ManualClock();
    const { done, controller, events } = start(clock, {
      latencyMs: 100_000,
      drainMs: 2000,
      phases: '  - { name: a, duration: 1s, rpm: 60 }\n',
    });
    await drive(clock, 500);
    controller.abort();
    await drive(clock, 3000);
    expect(await done).toMatchObject({ fired: 1, unsent: 0, abandoned: 1, interrupted: true });
    expect(events.map((e) => e.outcome)).toEqual(['abandoned']);
  });

  it('counts a request the client could not send (stopped before its first attempt) as unsent', async () => {
    const clock = new ManualClock();
    const events: RequestEvent[] = [];
    const controller = new AbortController();
    const result = runPlan({
      plan: planOf('  - { name: a, duration: 3s, rpm: 100 }\n'),
      identify: async () => undefined,
      cancelInFlight: () => {},
      payload: () => 'note',
      clock,
      maxInFlight: 10,
      signal: controller.signal,
      drainMs: 1000,
      onEvent: (e) => events.push(e),
    });
    await drive(clock, 5000);
    expect(await result).toMatchObject({ fired: 5, unsent: 5, dropped: 0 });
    expect(events.every((e) => e.outcome === 'unsent' && e.firedAtMs !== undefined)).toBe(true);
  });
});
