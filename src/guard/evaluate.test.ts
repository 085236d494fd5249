import { describe, expect, it } from 'vitest';
import { buildPlan } from '../plan/index.js';
import { parseScenario } from '../scenario/index.js';
import { type GuardDecision, evaluateGuard } from './evaluate.js';

type Phase = { name: string; duration: string; rpm?: number; fromRpm?: number; toRpm?: number };

const SANDBOX = { environment: 'sandbox', baseUrl: 'https://sandbox.example.com' };
const PRODUCTION = { environment: 'production', baseUrl: 'https://api.example.com' };
const flat = (duration: string, rpm: number, name = 'p'): Phase => ({ name, duration, rpm });

function decide(scenario: Record<string, unknown>, at: string, options: { timeScale?: number; loopbackAsReal?: boolean } = {}): GuardDecision {
  const text = JSON.stringify({ name: 'g', description: 'guard table', phases: [flat('10m', 60)], ...scenario });
  const plan = buildPlan(parseScenario(text, 'g.json'), { timeScale: options.timeScale ?? 1 });
  return evaluateGuard(plan, { startAtMs: Date.parse(at), loopbackAsReal: options.loopbackAsReal ?? false });
}

const statusOf = (d: GuardDecision, rule: string): string => d.checks.find((c) => c.rule === rule)!.status;
const reasonOf = (d: GuardDecision, rule: string): string => d.reasons.find((r) => r.startsWith(`${rule}:`)) ?? '';

describe('guard: advance notice of a sandbox run (14 days, UTC)', () => {
  const notice = { announcedOn: '2026-11-01', reference: 'CASE-1001' };
  it.each([
    { name: 'exactly 14 days', at: '2026-11-15T00:00:00Z', status: 'ok', says: '14 days before the run start' },
    { name: '13 days 23 hours', at: '2026-11-14T23:00:00Z', status: 'refused', says: '1 hour (0.04 days) short of the 14 days' },
    { name: 'a +01:00 start that is still 14 Nov in UTC', at: '2026-11-15T00:30:00+01:00', status: 'refused', says: '30 minutes (0.02 days) short' },
    { name: 'a -01:00 start that is already 15 Nov in UTC', at: '2026-11-14T23:30:00-01:00', status: 'ok', says: '14 days before' },
    { name: 'two days early', at: '2026-11-13T00:00:00Z', status: 'refused', says: 'is 12 days before the run start 2026-11-13T00:00:00Z: 2 days short of the 14 days' },
    { name: 'a month ahead', at: '2026-12-01T09:00:00Z', status: 'ok', says: '30 days 9 hours before the run start' },
  ])('$name → $status', ({ at, status, says }) => {
    const d = decide({ target: SANDBOX, notice }, at);
    expect(statusOf(d, 'notice')).toBe(status);
    expect(d.allowed).toBe(status === 'ok');
    expect(d.checks.find((c) => c.rule === 'notice')!.message).toContain(says);
  });

  it('refuses a sandbox run without a notice and says which announcement day would do', () => {
    const d = decide({ target: SANDBOX }, '2026-11-20T10:00:00Z');
    expect(d.allowed).toBe(false);
    expect(reasonOf(d, 'notice')).toContain('a sandbox run needs an advance notice and this scenario has none');
    expect(reasonOf(d, 'notice')).toContain('announcedOn must be 2026-11-06 or earlier (UTC)');
    expect(reasonOf(d, 'notice')).toContain('at least two weeks in advance');
  });

  it('says what would satisfy the rule', () => {
    const d = decide({ target: SANDBOX, notice }, '2026-11-13T00:00:00Z');
    expect(reasonOf(d, 'notice')).toMatch(/; start at or after 2026-11-15T00:00:00Z, or use a notice announced on 2026-10-30 or earlier$/);
  });

  it('refuses a notice dated after the run start', () => {
    const d = decide({ target: SANDBOX, notice: { announcedOn: '2026-12-01', reference: 'CASE-1' } }, '2026-11-20T00:00:00Z');
    expect(reasonOf(d, 'notice')).toContain('is after the run start 2026-11-20T00:00:00Z: 25 days short');
  });

  it('does not ask production for a notice', () => {
    const d = decide({ target: PRODUCTION }, '2026-11-20T10:00:00Z');
    expect(statusOf(d, 'notice')).toBe('not-applicable');
    expect(d.allowed).toBe(true);
  });
});

describe('guard: the announced window', () => {
  // A 1-hour plan; its planned end is the last slot + the 16 s client timeout.
  const notice = { announcedOn: '2026-11-01', reference: 'CASE-2', window: { start: '2026-12-01T09:00:00Z', end: '2026-12-01T12:00:00Z' } };
  it.each([
    { name: 'at the opening', at: '2026-12-01T09:00:00Z', status: 'ok', says: 'are inside the announced window' },
    { name: 'the same instant written at +01:00', at: '2026-12-01T10:00:00+01:00', status: 'ok', says: 'start 2026-12-01T09:00:00Z' },
    { name: 'a minute before it opens', at: '2026-12-01T08:59:00Z', status: 'refused', says: '1 minute before the announced window' },
    { name: 'ending exactly at the close', at: '2026-12-01T10:59:44Z', status: 'ok', says: 'planned end 2026-12-01T12:00:00Z' },
    { name: 'ending 16 s after the close', at: '2026-12-01T11:00:00Z', status: 'refused', says: 'planned end 2026-12-01T12:00:16Z (last arrival + worst-case answer time) is less than a minute after' },
  ])('$name → $status', ({ at, status, says }) => {
    const d = decide({ target: SANDBOX, notice, phases: [flat('1h', 60)] }, at);
    expect(statusOf(d, 'notice-window')).toBe(status);
    expect(d.checks.find((c) => c.rule === 'notice-window')!.message).toContain(says);
  });
});

describe('guard: more than 5 minutes above 200 rpm needs coordination', () => {
  it.each([
    { name: '250 rpm for 5m', phases: [flat('5m', 250)], status: 'ok', says: 'at most 5m above 200 rpm' },
    { name: '250 rpm for 5m1s', phases: [flat('5m1s', 250)], status: 'refused', says: 'above 200 rpm for 5m1s (phase p)' },
    { name: 'exactly 200 rpm for an hour', phases: [flat('1h', 200)], status: 'ok', says: 'never above 200 rpm' },
    { name: 'two phases that add up', phases: [flat('3m', 250, 'a'), flat('3m', 210, 'b')], status: 'refused', says: 'for 6m (phases a, b)' },
    { name: 'a ramp 100→300 over 10m (5m above)', phases: [{ name: 'r', duration: '10m', fromRpm: 100, toRpm: 300 }], status: 'ok', says: 'at most 5m above' },
    { name: 'a ramp 100→300 over 10m2s', phases: [{ name: 'r', duration: '10m2s', fromRpm: 100, toRpm: 300 }], status: 'refused', says: 'for 5m1s (phase r)' },
    { name: 'a ramp down 300→100 after 3m at 300', phases: [flat('3m', 300, 'hold'), { name: 'down', duration: '6m', fromRpm: 300, toRpm: 100 }], status: 'refused', says: 'for 6m (phases hold, down)' },
    { name: 'a dip shorter than a minute', phases: [flat('4m', 250, 'a'), flat('30s', 100, 'dip'), flat('4m', 250, 'b')], status: 'refused', says: 'for 8m30s (phases a, dip, b)' },
    { name: 'a dip of a full minute', phases: [flat('4m', 250, 'a'), flat('1m', 100, 'rest'), flat('4m', 250, 'b')], status: 'ok', says: 'at most 4m above' },
  ])('$name → $status', ({ phases, status, says }) => {
    const d = decide({ target: PRODUCTION, phases }, '2026-11-20T10:00:00Z');
    expect(statusOf(d, 'coordination')).toBe(status);
    expect(d.checks.find((c) => c.rule === 'coordination')!.message).toContain(says);
  });

  it('judges the rate, not the Poisson noise', () => {
    const d = decide({ target: PRODUCTION, phases: [flat('5m', 250)], arrivals: { process: 'poisson', seed: 3 } }, '2026-11-20T10:00:00Z');
    expect(d.allowed).toBe(true);
  });

  it('counts the worst case of the retry budget', () => {
    const on429 = { policy: 'retry', maxAttempts: 2 };
    const d = decide({ target: PRODUCTION, phases: [flat('6m', 120)], on429 }, '2026-11-20T10:00:00Z');
    expect(d.traffic).toMatchObject({ worstCaseFactor: 2, peakRpm: 240 });
    expect(reasonOf(d, 'coordination')).toContain('above 200 rpm for 6m (phase p) (worst case: on429 retry with maxAttempts 2 counts every arrival 2 times)');
    expect(reasonOf(d, 'coordination')).toContain('add coordination: { reference: <case id> }');
    expect(decide({ target: PRODUCTION, phases: [flat('6m', 120)], on429: { policy: 'record', maxAttempts: 2 } }, '2026-11-20T10:00:00Z').allowed).toBe(true);
  });

  it('lets a coordinated plan through and names the reference', () => {
    const d = decide({ target: PRODUCTION, phases: [flat('20m', 250)], coordination: { reference: 'CASE-77' } }, '2026-11-20T10:00:00Z');
    expect(d.allowed).toBe(true);
    expect(d.checks.find((c) => c.rule === 'coordination')!.message).toContain('coordinated with support (CASE-77)');
  });
});

describe('guard: the documented envelope (300 rpm, 5 minutes at 300, 128 in flight) and raised limits', () => {
  const coordination = { reference: 'CASE-9' };
  it.each([
    { name: '300 rpm for 5m', extra: { phases: [flat('5m', 300)] }, status: 'ok', says: 'inside the documented envelope' },
    { name: '300 rpm for 5m1s', extra: { phases: [flat('5m1s', 300)] }, status: 'refused', says: 'stays at or above 300 rpm for 5m1s (phase p), more than 5 minutes' },
    { name: 'a peak of 301 rpm', extra: { phases: [flat('1m', 301)] }, status: 'refused', says: 'it peaks at 301 rpm, above 300 rpm' },
    { name: 'a ramp to 360 rpm', extra: { phases: [{ name: 'r', duration: '2m', fromRpm: 100, toRpm: 360 }] }, status: 'refused', says: 'it peaks at 360 rpm' },
    { name: 'maxInFlight 129', extra: { maxInFlight: 129 }, status: 'refused', says: 'maxInFlight 129 is above 128 in flight' },
    { name: '100 rpm with 4 attempts per arrival', extra: { phases: [flat('1m', 100)], on429: { policy: 'retry', maxAttempts: 4 } }, status: 'refused', says: 'it peaks at 400 rpm, above 300 rpm (worst case' },
    {
      name: '500 rpm for 20m inside raised limits',
      extra: { phases: [flat('20m', 500)], maxInFlight: 256, limits: { spikeRpm: 600, spikeMinutes: 10, maxInFlight: 256, reference: 'CASE-RAISE-1' } },
      status: 'ok',
      says: 'inside the limits raised by support (CASE-RAISE-1)',
    },
    {
      name: '650 rpm above raised limits',
      extra: { phases: [flat('1m', 650)], limits: { spikeRpm: 600, reference: 'CASE-RAISE-1' } },
      status: 'refused',
      says: 'exceeds the limits raised by support (CASE-RAISE-1: up to 600 rpm for 5 minutes, 128 in flight): it peaks at 650 rpm',
    },
  ])('$name → $status', ({ extra, status, says }) => {
    const d = decide({ target: PRODUCTION, coordination, ...extra }, '2026-11-20T10:00:00Z');
    expect(statusOf(d, 'envelope')).toBe(status);
    expect(d.checks.find((c) => c.rule === 'envelope')!.message).toContain(says);
  });
});

describe('guard: targets and time scale', () => {
  const at = '2026-11-20T10:00:00Z';
  it.each([
    { name: 'the embedded mock', target: { environment: 'mock' }, allowed: true },
    { name: 'a mock on 127.0.0.1', target: { environment: 'mock', baseUrl: 'http://127.0.0.1:9000' }, allowed: true },
    { name: 'a mock on 127.3.2.1', target: { environment: 'mock', baseUrl: 'http://127.3.2.1:9000' }, allowed: true },
    { name: 'a mock on [::1]', target: { environment: 'mock', baseUrl: 'http://[::1]:9000' }, allowed: true },
    { name: 'a mock on localhost', target: { environment: 'mock', baseUrl: 'http://localhost:9000' }, allowed: true },
    { name: 'a mock on a LAN address', target: { environment: 'mock', baseUrl: 'http://10.0.0.5:9000' }, allowed: false },
    { name: 'an undeclared environment at a public URL', target: { baseUrl: 'https://api.example.com' }, allowed: false },
    { name: 'production at a loopback URL', target: { environment: 'production', baseUrl: 'http://127.0.0.1:9000' }, allowed: false },
    { name: 'production at a public URL', target: PRODUCTION, allowed: true },
  ])('$name → allowed $allowed', ({ target, allowed }) => {
    const d = decide({ target }, at);
    expect(d.allowed).toBe(allowed);
    expect(statusOf(d, 'target')).toBe(allowed ? 'ok' : 'refused');
  });

  it('names what is wrong with a non-loopback mock', () => {
    expect(reasonOf(decide({ target: { baseUrl: 'https://api.example.com' } }, at), 'target')).toBe(
      'target: target.baseUrl https://api.example.com is not loopback, but target.environment is mock (the default when none is declared); a mock runs on 127.0.0.0/8, ::1 or localhost — to test a real service, declare target.environment: sandbox or production',
    );
  });

  it('judges a loopback URL as real only with the test switch, and then applies every rule', () => {
    const target = { environment: 'sandbox', baseUrl: 'http://127.0.0.1:9000' };
    const d = decide({ target }, at, { loopbackAsReal: true });
    expect(statusOf(d, 'target')).toBe('ok');
    expect(d.real).toBe(true);
    expect(statusOf(d, 'notice')).toBe('refused');
  });

  it('refuses a time scale other than 1 against a real environment, not against a mock', () => {
    expect(reasonOf(decide({ target: PRODUCTION }, at, { timeScale: 20 }), 'time-scale')).toContain('--time-scale 20 against production: a real service runs in real time');
    expect(decide({ target: { environment: 'mock' } }, at, { timeScale: 20 }).allowed).toBe(true);
  });

  it('does not apply the traffic rules to a mock', () => {
    const d = decide({ target: { environment: 'mock' }, phases: [flat('30m', 1000)], maxInFlight: 1000 }, at);
    expect(d.allowed).toBe(true);
    expect(['notice', 'notice-window', 'coordination', 'envelope'].map((r) => statusOf(d, r))).toEqual(Array(4).fill('not-applicable'));
  });

  it('lists every refusal at once', () => {
    const d = decide({ target: SANDBOX, phases: [flat('10m', 400)], maxInFlight: 200 }, at, { timeScale: 5 });
    expect(d.reasons.map((r) => r.split(':')[0])).toEqual(['time-scale', 'notice', 'coordination', 'envelope']);
  });
});
