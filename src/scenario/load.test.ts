import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { ScenarioError } from '../core/errors.js';
import { loadScenario, parseScenario } from './load.js';

const MINIMAL = `
name: sustained
description: 100 rpm for 10 minutes
phases:
  - name: steady
    duration: 10m
    rpm: 100
`;

function problemsOf(text: string, file = 'bad.yaml'): readonly string[] {
  try {
    parseScenario(text, file);
  } catch (error) {
    if (error instanceof ScenarioError) return error.problems;
    throw error;
  }
  throw new Error('expected the scenario to be refused');
}

describe('parseScenario', () => {
  it('applies the defaults and resolves durations to milliseconds', () => {
    const s = parseScenario(MINIMAL, 'sustained.yaml');
    expect(s).toMatchObject({
      name: 'sustained',
      target: {
        environment: 'mock',
        credentials: { clientIdEnv: 'LOADPROOF_CLIENT_ID', clientSecretEnv: 'LOADPROOF_CLIENT_SECRET' },
      },
      phases: [{ name: 'steady', durationMs: 600_000, fromRpm: 100, toRpm: 100, warmupMs: 0 }],
      arrivals: { process: 'constant', seed: 1 },
      payload: { source: 'generated', minChars: 400, maxChars: 850 },
      on429: { policy: 'record', maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 30_000 },
      timeoutMs: 16_000,
      maxInFlight: 128,
      windowMs: 10_000,
      thresholds: { documentedTargets: true, all: [], byPhase: new Map() },
    });
    expect(Object.isFrozen(s.phases[0])).toBe(true);
  });

  it('reads ramps, warm-ups, thresholds and a sandbox target with notice', () => {
    const s = parseScenario(
      JSON.stringify({
        name: 'spike',
        description: 'x',
        target: { environment: 'sandbox', baseUrl: 'https://sandbox.example.com' },
        phases: [{ name: 'ramp', duration: '1m30s', fromRpm: 100, toRpm: 300, warmup: '30s' }],
        thresholds: {
          all: ['p(99) < 8s', 'rate(429) == 0', 'rate(errors) < 1%'],
          byPhase: { ramp: ['count(504) == 0'] },
        },
        notice: { announcedOn: '2026-11-01', reference: 'SUP-1234' },
      }),
      'spike.json',
    );
    expect(s.phases[0]).toEqual({ name: 'ramp', durationMs: 90_000, fromRpm: 100, toRpm: 300, warmupMs: 30_000 });
    expect(s.thresholds.all).toEqual([
      { kind: 'percentile', source: 'p(99) < 8s', percentile: 99, op: '<', valueMs: 8000 },
      { kind: 'rate', source: 'rate(429) == 0', of: '429', op: '==', fraction: 0 },
      { kind: 'rate', source: 'rate(errors) < 1%', of: 'errors', op: '<', fraction: 0.01 },
    ]);
    expect(s.thresholds.byPhase.get('ramp')).toEqual([
      { kind: 'count', source: 'count(504) == 0', of: '504', op: '==', count: 0 },
    ]);
    expect(s.notice).toEqual({ announcedOn: '2026-11-01', reference: 'SUP-1234' });
  });

  it.each([
    {
      name: 'an unknown field',
      edit: 'phases:\n  - name: a\n    duration: 1m\n    rpm: 100\n    rmp: 5',
      problem: 'phases[0].rmp: unknown field (check its spelling against loadproof schema)',
    },
    {
      name: 'a wrong type',
      edit: 'phases:\n  - name: a\n    duration: 1m\n    rpm: fast',
      problem: 'phases[0].rpm: expected rpm as a number of requests per minute, got "fast"',
    },
    {
      name: 'a negative rate',
      edit: 'phases:\n  - name: a\n    duration: 1m\n    rpm: -5',
      problem: 'phases[0].rpm: expected rpm > 0 (requests per minute), got -5',
    },
    {
      name: 'a zero rate',
      edit: 'phases:\n  - name: a\n    duration: 1m\n    rpm: 0',
      problem: 'phases[0].rpm: expected rpm > 0 (requests per minute), got 0',
    },
    {
      name: 'a missing duration',
      edit: 'phases:\n  - name: a\n    rpm: 100',
      problem: 'phases[0].duration: expected a duration as a string like "90s", "5m" or "1m30s", got nothing',
    },
    {
      name: 'a malformed duration',
      edit: 'phases:\n  - name: a\n    duration: 5 minutes\n    rpm: 100',
      problem:
        'phases[0].duration: expected a duration like "90s", "5m" or "1m30s" (units ms, s, m, h; each at most once, largest first), greater than zero, got "5 minutes"',
    },
    {
      name: 'a ramp without an end',
      edit: 'phases:\n  - name: a\n    duration: 1m\n    fromRpm: 100',
      problem: 'phases[0].toRpm: a ramp needs toRpm (the rate at its end), got nothing',
    },
    {
      name: 'no rate at all',
      edit: 'phases:\n  - name: a\n    duration: 1m',
      problem: 'phases[0].rpm: expected rpm (constant rate) or fromRpm and toRpm (ramp), got nothing',
    },
    {
      name: 'both a rate and a ramp',
      edit: 'phases:\n  - name: a\n    duration: 1m\n    rpm: 1\n    fromRpm: 1\n    toRpm: 2',
      problem: 'phases[0].rpm: give either rpm (constant) or fromRpm and toRpm (ramp), not both, got 1',
    },
    {
      name: 'a warm-up as long as the phase',
      edit: 'phases:\n  - name: a\n    duration: 1m\n    rpm: 1\n    warmup: 60s',
      problem: 'phases[0].warmup: expected warmup shorter than the phase (1m), got "60s"',
    },
    { name: 'no phases', edit: 'phases: []', problem: 'phases: expected at least one phase' },
    {
      name: 'a bad threshold',
      edit: 'phases:\n  - name: a\n    duration: 1m\n    rpm: 1\nthresholds:\n  all: ["p(95) < soon"]',
      problem:
        'thresholds.all[0]: p(…) compares with a finite duration like 2500ms or 4s (decimal amounts, each unit (h, m, s, ms) at most once and largest first, a point only in the last), got "soon"',
    },
  ])('refuses $name, naming the field, the value and what was expected', ({ edit, problem }) => {
    const text = `name: t\ndescription: d\n${edit}\n`;
    expect(problemsOf(text)).toContain(problem);
  });

  it('reports every problem at once', () => {
    const problems = problemsOf('name: "bad name!"\nphases:\n  - name: a\n    duration: x\n    rpm: -1\n');
    expect(problems).toHaveLength(4);
    expect(problems.map((p) => p.split(':')[0])).toEqual([
      'name',
      'description',
      'phases[0].duration',
      'phases[0].rpm',
    ]);
  });

  it('says a required field is missing, and what type another one should have', () => {
    const problems = problemsOf('name: t\nphases: 5\n');
    expect(problems).toEqual(['description: missing; expected a string', 'phases: expected a list of phases, got 5']);
    expect(problemsOf('name: t\ndescription: d\nphases: [{name: a, duration: 1m, rpm: 1}]\ntarget: 3\n')).toEqual([
      'target: expected a mapping of fields, got 3',
    ]);
  });

  it('refuses a secret in the file without showing its value', () => {
    const text = `${MINIMAL}target:\n  environment: mock\n  clientSecret: hunter2-very-secret\nauth:\n  access_token: tok-abc-123\n`;
    let message = '';
    try {
      parseScenario(text, 'leaky.yaml');
    } catch (error) {
      message = (error as Error).message;
      expect(error).toBeInstanceOf(ScenarioError);
      expect((error as ScenarioError).exitCode).toBe(2);
    }
    expect(message).toContain('target.clientSecret: a secret does not belong in a scenario file');
    expect(message).toContain('auth.access_token: a secret does not belong in a scenario file');
    expect(message).not.toContain('hunter2');
    expect(message).not.toContain('tok-abc-123');
  });

  it('refuses duplicate phase names, thresholds for unknown phases, and a real target without a URL', () => {
    const problems = problemsOf(
      'name: t\ndescription: d\ntarget:\n  environment: production\n  profile: nominal\nphases:\n  - {name: a, duration: 1m, rpm: 1}\n  - {name: a, duration: 1m, rpm: 2}\nthresholds:\n  byPhase:\n    b: ["p(95) < 1s"]\n',
    );
    expect(problems).toEqual([
      'target.baseUrl: a production target needs baseUrl, got nothing',
      'target.profile: a mock profile only applies to environment mock, not production, got "nominal"',
      'phases[1].name: "a" is already the name of phases[0], got "a"',
      'thresholds.byPhase.b: no phase is named "b"',
    ]);
  });

  it('takes a threshold as k6 does, as an expression or {threshold, abortOnFail}; abortOnFail only on an upper bound', () => {
    const scenario = parseScenario(
      `${MINIMAL}thresholds:\n  all:\n    - "p(99) < 4s"\n    - { threshold: "p(95) < 2s", abortOnFail: true }\n  byPhase:\n    steady: [{ threshold: "rate(errors) < 1%" }]\n`,
      'ok.yaml',
    );
    expect(scenario.thresholds.all.map((t) => [t.source, t.abortOnFail])).toEqual([
      ['p(99) < 4s', undefined],
      ['p(95) < 2s', true],
    ]);
    expect(scenario.thresholds.byPhase.get('steady')!.map((t) => [t.source, t.abortOnFail])).toEqual([
      ['rate(errors) < 1%', false],
    ]);
    expect(
      problemsOf(`${MINIMAL}thresholds:\n  all:\n    - { threshold: "rate(429) > 1%", abortOnFail: true }\n`),
    ).toEqual([
      'thresholds.all[0].abortOnFail: abortOnFail: only an upper bound (< or <=) can fail beyond doubt before the run ends, got "rate(429) > 1%"',
    ]);
  });

  it('reports YAML syntax errors and unreadable JSON as problems of the file', () => {
    expect(problemsOf('name: [unclosed\n')[0]).toMatch(/^\(file\): not valid YAML/);
    expect(problemsOf('{"name": ', 'x.json')[0]).toMatch(/^\(file\): not valid JSON/);
  });

  describe('keys written by the user are data, never properties of Object.prototype', () => {
    const PROTO_NAMES = ['constructor', 'toString', 'valueOf', 'hasOwnProperty'];

    it('reads phases named constructor, toString, valueOf and hasOwnProperty, each with its own thresholds', () => {
      const phases = PROTO_NAMES.map((name) => `  - { name: ${name}, duration: 1m, rpm: 10 }`).join('\n');
      const byPhase = PROTO_NAMES.map((name) => `    ${name}: ["count(504) == 0"]`).join('\n');
      const s = parseScenario(
        `name: t\ndescription: d\nphases:\n${phases}\nthresholds:\n  byPhase:\n${byPhase}\n`,
        't.yaml',
      );
      expect(s.phases.map((p) => p.name)).toEqual(PROTO_NAMES);
      for (const name of PROTO_NAMES)
        expect(s.thresholds.byPhase.get(name)).toEqual([
          { kind: 'count', source: 'count(504) == 0', of: '504', op: '==', count: 0 },
        ]);
      expect(s.thresholds.byPhase.get('__proto__')).toBeUndefined();
    });

    it('finds no thresholds for a phase named after a prototype member when none are given', () => {
      const s = parseScenario(
        'name: t\ndescription: d\nphases:\n  - { name: constructor, duration: 1m, rpm: 10 }\n',
        't.yaml',
      );
      expect(s.thresholds.byPhase.get('constructor')).toBeUndefined();
      expect(s.thresholds.byPhase.size).toBe(0);
    });

    it.each([
      [
        'YAML',
        'byphase.yaml',
        (key: string) =>
          `name: t\ndescription: d\nphases: [{ name: a, duration: 1m, rpm: 1 }]\nthresholds:\n  byPhase:\n    ${key}: ["p(95) < 1s"]\n`,
      ],
      [
        'JSON',
        'byphase.json',
        (key: string) =>
          `{"name": "t", "description": "d", "phases": [{"name": "a", "duration": "1m", "rpm": 1}], "thresholds": {"byPhase": {"${key}": ["p(95) < 1s"]}}}`,
      ],
    ])('refuses thresholds.byPhase.__proto__ and .constructor without such phases (%s)', (_, file, text) => {
      for (const key of ['__proto__', 'constructor', 'toString']) {
        expect(problemsOf(text(key), file)).toEqual([`thresholds.byPhase.${key}: no phase is named "${key}"`]);
      }
    });

    it('names a __proto__ field as unknown, at the top level and inside a phase', () => {
      expect(
        problemsOf(
          '{"name": "t", "description": "d", "phases": [{"name": "a", "duration": "1m", "rpm": 1, "__proto__": {"rpm": 2}}], "__proto__": {"x": 1}}',
          'p.json',
        ),
      ).toEqual([
        'phases[0].__proto__: unknown field (check its spelling against loadproof schema)',
        '__proto__: unknown field (check its spelling against loadproof schema)',
      ]);
    });
  });

  describe('bounds: every number within what makes sense, the bound named in the message', () => {
    /** A valid scenario with `phases` (YAML lines) and `extra` top-level fields. */
    const scenario = (extra = '', phases = '  - { name: a, duration: 1m, rpm: 60 }'): string =>
      `name: t\ndescription: d\nphases:\n${phases}\n${extra}\n`;
    const manyPhases = (n: number): string =>
      Array.from({ length: n }, (_, i) => `  - { name: p${i}, duration: 1s, rpm: 60 }`).join('\n');

    it.each([
      ['a phase of exactly 168h', scenario('window: 1h', '  - { name: a, duration: 168h, rpm: 1 }')],
      ['a warm-up of 167h', scenario('window: 1h', '  - { name: a, duration: 168h, rpm: 1, warmup: 167h }')],
      ['1000 phases', scenario('', manyPhases(1000))],
      ['exactly 10,000,000 planned requests', scenario('', '  - { name: a, duration: 1000m, rpm: 10000 }')],
      ['a rate above the old 60,000 rpm cap', scenario('', '  - { name: a, duration: 1s, rpm: 600000 }')],
      ['timeouts of 100ms and 10m', `${scenario('timeout: 100ms')}`],
      ['a timeout of 10m', scenario('timeout: 10m')],
      ['a window of 1s', scenario('window: 1s')],
      ['10,000 windows of 61s over 168h', scenario('window: 61s', '  - { name: a, duration: 168h, rpm: 1 }')],
      ['maxDelay of 1h and baseDelay equal to it', scenario('on429: { policy: retry, baseDelay: 1h, maxDelay: 1h }')],
      ['seeds 0 and 2^32 − 1', scenario('arrivals: { seed: 0 }\npayload: { seed: 4294967295 }')],
      [
        'limits of a day and a fractional rate',
        scenario(
          'limits: { burstMinutes: 1440, spikeMinutes: 0.5, sustainedRpm: 100.5, maxInFlight: 10000, reference: SUP-1 }',
        ),
      ],
      [
        'a notice window one millisecond long',
        scenario(
          "notice: { announcedOn: '1970-01-01', reference: SUP-1, window: { start: '2026-12-01T09:00:00Z', end: '2026-12-01T09:00:00.001Z' } }",
        ),
      ],
    ])('accepts %s', (_, text) => {
      expect(() => parseScenario(text, 'ok.yaml')).not.toThrow();
    });

    it.each([
      [
        'a phase over 7 days',
        scenario('', '  - { name: a, duration: 168h1ms, rpm: 1 }'),
        'phases[0].duration: expected a duration of at most 168h (7 days), got "168h1ms"',
      ],
      [
        '10000h at 60000 rpm',
        scenario('', '  - { name: a, duration: 10000h, rpm: 60000 }'),
        'phases[0].duration: expected a duration of at most 168h (7 days), got "10000h"',
      ],
      [
        'a duration too long to be a number',
        scenario('', `  - { name: a, duration: ${'9'.repeat(400)}ms, rpm: 1 }`),
        'phases[0].duration: expected a duration of at most 168h (7 days), got "99999999999999999999999999999999999999999999999999999999...',
      ],
      [
        'a warm-up over 7 days',
        scenario('', '  - { name: a, duration: 1s, rpm: 1, warmup: 200h }'),
        'phases[0].warmup: expected a duration of at most 168h (7 days), got "200h"',
      ],
      ['1001 phases', scenario('', manyPhases(1001)), 'phases: expected at most 1000 phases, got 1001'],
      [
        'more than 10,000,000 planned requests',
        scenario(
          '',
          [
            '  - { name: a, duration: 100h, rpm: 500 }',
            '  - { name: b, duration: 168h, rpm: 600 }',
            '  - { name: c, duration: 24h, rpm: 1000 }',
          ].join('\n'),
        ),
        'phases: expected at most 10,000,000 planned requests in all, got 10,488,000 (phases[1] "b" plans the most: 6,048,000); lower a rate or a duration',
      ],
      [
        'a ramp one request over the bound',
        scenario('', '  - { name: r, duration: 10m, fromRpm: 1, toRpm: 2000000 }'),
        'phases: expected at most 10,000,000 planned requests in all, got 10,000,005 (phases[0] "r" plans the most: 10,000,005); lower a rate or a duration',
      ],
      [
        'an astronomical rate',
        scenario('', `  - { name: a, duration: 1s, rpm: 1${'0'.repeat(308)} }`),
        'phases: expected at most 10,000,000 planned requests in all, got 1.67e+306 (phases[0] "a" plans the most: 1.67e+306); lower a rate or a duration',
      ],
      [
        'an infinite rate',
        scenario('', '  - { name: a, duration: 1s, rpm: .inf }'),
        'phases[0].rpm: expected rpm as a finite number of requests per minute, got Infinity',
      ],
      [
        'a NaN rate',
        scenario('', '  - { name: a, duration: 1s, fromRpm: .nan, toRpm: 1 }'),
        'phases[0].fromRpm: expected fromRpm as a finite number of requests per minute, got NaN',
      ],
      ['a timeout of 99ms', scenario('timeout: 99ms'), 'timeout: expected a timeout from 100ms to 10m, got "99ms"'],
      ['a timeout of 1000h', scenario('timeout: 1000h'), 'timeout: expected a timeout from 100ms to 10m, got "1000h"'],
      ['a window of 999ms', scenario('window: 999ms'), 'window: expected a window from 1s to 168h, got "999ms"'],
      [
        'a window of 0.000001ms',
        scenario('window: 0.000001ms'),
        'window: expected a window from 1s to 168h, got "0.000001ms"',
      ],
      [
        '10,080 windows',
        scenario('window: 1m', '  - { name: a, duration: 168h, rpm: 1 }'),
        'window: expected at most 10,000 windows over the plan\'s 168h (a window of at least 1m1s for this plan), got "1m"',
      ],
      [
        '60,480 windows of the default 10s',
        scenario('', '  - { name: a, duration: 168h, rpm: 1 }'),
        'window: expected at most 10,000 windows over the plan\'s 168h (a window of at least 1m1s for this plan), got "10s"',
      ],
      [
        'maxDelay over 1h',
        scenario('on429: { maxDelay: 1h1s }'),
        'on429.maxDelay: expected a duration of at most 1h, got "1h1s"',
      ],
      [
        'baseDelay over maxDelay',
        scenario('on429: { baseDelay: 31s }'),
        'on429.baseDelay: expected baseDelay ≤ maxDelay (30s), got "31s"',
      ],
      [
        '11 attempts',
        scenario('on429: { maxAttempts: 11 }'),
        'on429.maxAttempts: expected an integer from 1 to 10, got 11',
      ],
      [
        'a negative seed',
        scenario('arrivals: { seed: -1 }'),
        'arrivals.seed: expected an integer from 0 to 4294967295 (2^32 − 1), got -1',
      ],
      [
        'a seed of 2^32',
        scenario('payload: { seed: 4294967296 }'),
        'payload.seed: expected an integer from 0 to 4294967295 (2^32 − 1), got 4294967296',
      ],
      [
        'an infinite seed',
        scenario('arrivals: { seed: .inf }'),
        'arrivals.seed: expected an integer from 0 to 4294967295 (2^32 − 1), got Infinity',
      ],
      ['maxInFlight 0', scenario('maxInFlight: 0'), 'maxInFlight: expected an integer from 1 to 10000, got 0'],
      [
        'limits over a day',
        scenario('limits: { burstMinutes: 1441, reference: SUP-1 }'),
        'limits.burstMinutes: expected minutes > 0 and at most 1440 (a day), got 1441',
      ],
      [
        'infinite limit minutes',
        scenario('limits: { spikeMinutes: .inf, reference: SUP-1 }'),
        'limits.spikeMinutes: expected minutes > 0 and at most 1440 (a day), got Infinity',
      ],
      [
        'a NaN limit rate',
        scenario('limits: { sustainedRpm: .nan, reference: SUP-1 }'),
        'limits.sustainedRpm: expected sustainedRpm as a finite number of requests per minute, got NaN',
      ],
      [
        'a huge in-flight limit',
        scenario('limits: { maxInFlight: 1000000000000, reference: SUP-1 }'),
        'limits.maxInFlight: expected an integer from 1 to 10000, got 1000000000000',
      ],
      [
        'a notice window that ends before it starts',
        scenario(
          "notice: { announcedOn: '2026-11-01', reference: SUP-1, window: { start: '2026-12-01T09:00:00Z', end: '2026-12-01T10:00:00+01:00' } }",
        ),
        'notice.window.end: expected an end after notice.window.start (2026-12-01T09:00:00Z), got "2026-12-01T10:00:00+01:00"',
      ],
      [
        'a day that does not exist',
        scenario("notice: { announcedOn: '2026-02-30', reference: SUP-1 }"),
        'notice.announcedOn: expected a real calendar date from 1970 to 9999, like 2026-11-02, got "2026-02-30"',
      ],
      [
        'year 0',
        scenario("notice: { announcedOn: '0000-01-01', reference: SUP-1 }"),
        'notice.announcedOn: expected a real calendar date from 1970 to 9999, like 2026-11-02, got "0000-01-01"',
      ],
      [
        'a window start in year 1969',
        scenario(
          "notice: { announcedOn: '2026-11-01', reference: SUP-1, window: { start: '1969-12-31T09:00:00Z', end: '2026-12-01T10:00:00Z' } }",
        ),
        'notice.window.start: expected an ISO date-time with a zone, like 2026-11-20T09:00:00Z, in the years 1970 to 9999, got "1969-12-31T09:00:00Z"',
      ],
      [
        'a threshold over an endless duration',
        scenario(`thresholds: { all: ["p(95) < ${'9'.repeat(400)}h"] }`),
        'thresholds.all[0]: p(…) compares with a finite duration like 2500ms or 4s',
      ],
    ])('refuses %s', (_, text, problem) => {
      expect(problemsOf(text).join('\n')).toContain(problem);
    });

    it('refuses a YAML alias bomb ("billion laughs") with the bound, not a stack', () => {
      const bomb = [
        'x0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]',
        ...Array.from({ length: 9 }, (_, i) => `x${i + 1}: &a${i + 1} [${Array(9).fill(`*a${i}`).join(', ')}]`),
      ];
      expect(problemsOf(`${scenario()}${bomb.join('\n')}\n`)).toEqual([
        '(file): expected YAML aliases to expand to at most 100 nodes (a guard against "billion laughs" files), got more',
      ]);
    });

    it('refuses nesting deeper than 64 levels, in YAML and in JSON, naming the field it is under', () => {
      expect(problemsOf(`${scenario()}deep: ${'['.repeat(64)}${']'.repeat(64)}\n`)).toEqual([
        'deep: unknown field (check its spelling against loadproof schema)',
      ]);
      expect(problemsOf(`${scenario()}deep: ${'['.repeat(65)}${']'.repeat(65)}\n`)).toEqual([
        '(file): expected at most 64 levels of nesting (lists and mappings inside one another), got more under deep',
      ]);
      expect(problemsOf(`{"name": "t", "deep": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`, 'deep.json')).toEqual([
        '(file): expected at most 64 levels of nesting (lists and mappings inside one another), got more under deep',
      ]);
    });

    it('turns any exception of the YAML parser into a problem of the file', () => {
      // 20,000 open brackets: the parser's recursion overflows the stack at about 800 (25 × fewer than
      // this); 200,000 cost 3.6 s of CPU for the same exception.
      const problems = problemsOf(`description: ${'['.repeat(20_000)}\n`);
      expect(problems[0]).toMatch(/^\(file\): not valid YAML/);
    });

    it('says a file with nothing in it is empty', () => {
      expect(problemsOf('')).toEqual(['(file): empty; expected a scenario (name, description, phases)']);
      expect(problemsOf('# only a comment\n')).toEqual([
        '(file): empty; expected a scenario (name, description, phases)',
      ]);
      expect(problemsOf(' \n', 'e.json')).toEqual(['(file): empty; expected a scenario (name, description, phases)']);
    });

    it('refuses a file over 1 MiB before parsing it, from its size on disk (and never reads more than that)', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'loadproof-size-'));
      const head = scenario();
      const exact = join(dir, 'exact.yaml');
      writeFileSync(exact, `${head}#${'x'.repeat(1024 * 1024 - head.length - 2)}\n`);
      await expect(loadScenario(exact)).resolves.toMatchObject({ name: 't' });
      const over = join(dir, 'over.yaml');
      writeFileSync(over, `${head}#${'x'.repeat(1024 * 1024 - head.length - 1)}\n`);
      await expect(loadScenario(over)).rejects.toMatchObject({
        problems: ['(file): expected at most 1 MiB (1048576 bytes), got 1048577 bytes'],
      });
      // A sparse file of 4 GiB: refused from its size, without reading it.
      const sparse = join(dir, 'sparse.yaml');
      writeFileSync(sparse, '');
      truncateSync(sparse, 4 * 1024 ** 3);
      await expect(loadScenario(sparse)).rejects.toMatchObject({
        problems: ['(file): expected at most 1 MiB (1048576 bytes), got 4294967296 bytes'],
      });
      expect(problemsOf(`${head}#${'é'.repeat(600_000)}\n`)[0]).toMatch(
        /^\(file\): expected at most 1 MiB \(1048576 bytes\), got \d+ bytes$/,
      );
    });

    it('refuses an endless file that reports no size (a device) after reading just over 1 MiB', async () => {
      await expect(loadScenario('/dev/zero')).rejects.toMatchObject({
        problems: ['(file): expected at most 1 MiB (1048576 bytes), got more'],
      });
    });
  });

  describe('never echoes what may be a secret', () => {
    const CANARY = 'kN4ryQ-7zXw-s3cr3t-Vq9';
    const HEAD = 'name: t\ndescription: d\nphases: [{ name: a, duration: 1m, rpm: 1 }]\n';
    const refusal = (text: string, file = 'c.yaml'): string => {
      const problems = problemsOf(text, file).join('\n');
      expect(problems).not.toContain(CANARY);
      expect(problems).not.toContain(CANARY.slice(0, 6));
      return problems;
    };

    it.each([
      [
        'a secret typed as clientSecretEnv',
        `${HEAD}target: { credentials: { clientSecretEnv: "${CANARY}" } }\n`,
        'target.credentials.clientSecretEnv: not a variable name (expected letters, digits and _, not starting with a digit; value not shown)',
      ],
      [
        'a secret typed as clientIdEnv',
        `${HEAD}target: { credentials: { clientIdEnv: "${CANARY} " } }\n`,
        'target.credentials.clientIdEnv: not a variable name (expected letters, digits and _, not starting with a digit; value not shown)',
      ],
      [
        'a secret as the credentials',
        `${HEAD}target: { credentials: ${CANARY} }\n`,
        'target.credentials: expected a mapping of fields (clientIdEnv, clientSecretEnv); value not shown',
      ],
      [
        'a secret in a list as the credentials',
        `${HEAD}target: { credentials: [${CANARY}] }\n`,
        'target.credentials: expected a mapping of fields (clientIdEnv, clientSecretEnv); value not shown',
      ],
      [
        'a secret as a key of the credentials',
        `${HEAD}target: { credentials: { ${CANARY}: x } }\n`,
        'target.credentials: unknown field (its name is not shown; expected clientIdEnv, clientSecretEnv)',
      ],
      [
        'a number as clientSecretEnv',
        `${HEAD}target: { credentials: { clientSecretEnv: 12345678 } }\n`,
        'target.credentials.clientSecretEnv: not a variable name (expected letters, digits and _, not starting with a digit; value not shown)',
      ],
      [
        'a password in the base URL',
        `${HEAD}target: { baseUrl: "http://admin:${CANARY}@127.0.0.1:9" }\n`,
        'target.baseUrl: expected a URL without user:password@ (credentials come from the environment or --credentials; value not shown)',
      ],
      [
        'a password in the audience',
        `${HEAD}target: { audience: "https://admin:${CANARY}@api.example.com" }\n`,
        'target.audience: expected a URL without user:password@ (credentials come from the environment or --credentials; value not shown)',
      ],
    ])('refuses %s without showing it', (_, text, problem) => {
      expect(refusal(text)).toBe(problem);
    });

    it('names an unknown field with escape codes, bidi controls or a long name quoted, escaped and cut', () => {
      const problems = problemsOf(`${HEAD}"\\e[31mred": 1\n"a\\u202Eb": 2\n${'k'.repeat(100)}: 3\n`);
      expect(problems).toEqual([
        '["\\u001b[31mred"]: unknown field (check its spelling against loadproof schema)',
        '["a\\u202eb"]: unknown field (check its spelling against loadproof schema)',
        `["${'k'.repeat(56)}...]: unknown field (check its spelling against loadproof schema)`,
      ]);
    });

    it('reports a JSON syntax error by line and column only, not with the text around it', () => {
      const text = `{"name": "t", "description": "d",\n "phases": [{"name": "a", "duration": "1m", "rpm": 1}],\n\n "notes": ${CANARY}}\n`;
      expect(refusal(text, 'c.json')).toBe('(file): not valid JSON at line 4, column 11');
      expect(refusal('{"name": "t",}', 'c.json')).toBe('(file): not valid JSON at line 1, column 14');
      expect(refusal(`{"name": "${CANARY}`, 'c.json')).toBe(
        '(file): not valid JSON at line 1, column 33 (end of file)',
      );
      expect(refusal(`{"name": "t"}\n${CANARY}`, 'c.json')).toBe('(file): not valid JSON at line 2, column 1');
      expect(refusal(`{"a": "\u0001${CANARY}"}`, 'c.json')).toBe('(file): not valid JSON at line 1, column 8');
      expect(refusal(`{"a": "\\x${CANARY}"}`, 'c.json')).toBe('(file): not valid JSON at line 1, column 8');
      expect(refusal(`{"a": -${CANARY}}`, 'c.json')).toBe('(file): not valid JSON at line 1, column 7');
      expect(refusal(`{"a": [1 2]}`, 'c.json')).toBe('(file): not valid JSON at line 1, column 10');
    });

    it('reports YAML syntax errors by line, column and kind only', () => {
      expect(refusal(`${HEAD}notes: [${CANARY}\n`)).toMatch(
        /^\(file\): not valid YAML at line \d+, column \d+ \([a-z ]+\)$/,
      );
      expect(refusal(`name: t\nname: ${CANARY}\n`)).toBe('(file): not valid YAML at line 2, column 1 (duplicate key)');
      expect(refusal(`${HEAD}description2: *${CANARY}\n`)).toBe(
        '(file): not valid YAML: an alias (*name) refers to no anchor (&name) before it',
      );
    });
  });
});
