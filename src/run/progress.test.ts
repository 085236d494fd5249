import { afterEach, describe, expect, it, vi } from 'vitest';

import { ManualClock } from '../core/clock.js';
import type { EventRecord } from '../judge/index.js';
import { buildPlan } from '../plan/index.js';
import { parseScenario } from '../scenario/index.js';
import { Progress } from './progress.js';

const plan = buildPlan(
  parseScenario(
    'name: p\ndescription: progress\nphases:\n  - { name: steady, duration: 1m, rpm: 60 }\n  - { name: ramp, duration: 1m, fromRpm: 60, toRpm: 120 }\n',
    'p.yaml',
  ),
  { timeScale: 1 },
);

const record = (outcome: EventRecord['outcome'], latencyMs: number | null = 100): EventRecord =>
  ({
    seq: 0,
    phase: 'steady',
    intendedAtMs: 0,
    firedAtMs: 0,
    lastSentAtMs: 0,
    endAtMs: latencyMs,
    latencyMs,
    outcome,
    status: null,
    attempts: 1,
    retryAfterS: [],
    tries: [],
  }) as EventRecord;

afterEach(() => {
  vi.useRealTimers();
});

describe('live progress', () => {
  it('says how far the run is, the phase and its rate, the answers since the last line, what awaits an answer, and the counts', () => {
    const clock = new ManualClock(5000); // the run's t = 0 is whenever start() is called
    const progress = new Progress(plan, clock, 'off', () => {});
    progress.start();
    for (let i = 0; i < 18; i++) progress.record(record('ok', 100 + i * 10));
    progress.record(record('http_429', null));
    progress.record(record('http_504', 15_000));
    progress.record(record('timeout', null));
    progress.record(record('dropped', null));
    clock.advanceTo(5000 + 30_000);
    // 30 s in: 31 arrivals due at 60 rpm (t = 0 … 30 s), 22 with a known fate (the drop included). p95 of 19 answers
    // (HDR's 3 digits).
    expect(progress.line(clock.nowMs())).toBe(
      'loadproof: 30s of 2m · steady at 60 rpm · sent 42 rpm, p95 15.01s (since last line) · awaiting 9 · 2xx 18 429 1 504 1 errors 1',
    );
    clock.advanceTo(5000 + 90_000);
    // Halfway up the ramp: 60 + 38 due (30 s of 60→90 rpm), 22 known; nothing answered since the last line.
    expect(progress.line(clock.nowMs())).toBe(
      'loadproof: 1m30s of 2m · ramp at 90 rpm · sent 0 rpm, p95 — (since last line) · awaiting 76 · 2xx 18 429 1 504 1 errors 1',
    );
  });

  it('reads the p95 as the latency definition does: retried 429s and unanswered requests count', () => {
    const clock = new ManualClock(0);
    const progress = new Progress(plan, clock, 'off', () => {});
    progress.start();
    for (let i = 0; i < 10; i++) progress.record(record('ok', 100));
    // Its retries all ended in 429: it cost its client 9 s.
    progress.record({ ...record('http_429', 9000), attempts: 3 });
    progress.record(record('http_429', 40)); // a 429 at once: left out
    clock.advanceTo(30_000);
    expect(progress.line(clock.nowMs())).toContain('p95 9.00s (since last line)');
    for (let i = 0; i < 10; i++) progress.record(record('ok', 100));
    progress.record({ ...record('dropped', null), firedAtMs: null, lastSentAtMs: null });
    clock.advanceTo(60_000);
    expect(progress.line(clock.nowMs())).toContain('p95 unanswered (since last line)');
  });

  it('on a terminal rewrites one line every second and erases it when the load ends or a line is logged', () => {
    vi.useFakeTimers();
    const clock = new ManualClock(0);
    const written: string[] = [];
    const progress = new Progress(plan, clock, 'tty', (t) => written.push(t));
    progress.start();
    clock.advanceTo(1000);
    vi.advanceTimersByTime(1000);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/^\r\x1b\[2Kloadproof: 1s of 2m · steady at 60 rpm/);
    progress.clear(); // before a logged line
    expect(written[1]).toBe('\r\x1b[2K');
    progress.clear(); // nothing on screen: nothing to erase
    expect(written).toHaveLength(2);
    vi.advanceTimersByTime(1000);
    progress.stop();
    expect(written.at(-1)).toBe('\r\x1b[2K');
    const count = written.length;
    vi.advanceTimersByTime(5000);
    expect(written).toHaveLength(count); // stopped
  });

  it('on a narrow terminal cuts the line to fit (a wrapped line could not be rewritten), and shows low rates to a decimal', () => {
    vi.useFakeTimers();
    const slow = buildPlan(
      parseScenario('name: s\ndescription: slow\nphases:\n  - { name: sparse, duration: 10m, rpm: 0.5 }\n', 's.yaml'),
      { timeScale: 1 },
    );
    const clock = new ManualClock(0);
    const written: string[] = [];
    const progress = new Progress(
      slow,
      clock,
      'tty',
      (t) => written.push(t),
      () => 40,
    );
    progress.start();
    clock.advanceTo(1000);
    vi.advanceTimersByTime(1000);
    expect(written[0]).toBe('\r\x1b[2Kloadproof: 1s of 10m · sparse at 0.5 r…');
    expect(written[0]!.length - '\r\x1b[2K'.length).toBe(39);
    progress.stop();
  });

  it('elsewhere writes a plain line every 10 s; off writes nothing', () => {
    vi.useFakeTimers();
    const clock = new ManualClock(0);
    const lines: string[] = [];
    const progress = new Progress(plan, clock, 'lines', (t) => lines.push(t));
    progress.start();
    vi.advanceTimersByTime(9_999);
    expect(lines).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith('\n')).toBe(true);
    expect(lines[0]).not.toContain('\x1b');
    progress.stop();
    const off = new Progress(plan, clock, 'off', (t) => lines.push(t));
    off.start();
    vi.advanceTimersByTime(60_000);
    off.stop();
    expect(lines).toHaveLength(1);
  });
});
