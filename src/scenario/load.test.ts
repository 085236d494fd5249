import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../core/errors.js';
import { parseScenario } from './load.js';

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
      target: { environment: 'mock', credentials: { clientIdEnv: 'LOADPROOF_CLIENT_ID', clientSecretEnv: 'LOADPROOF_CLIENT_SECRET' } },
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
        thresholds: { all: ['p(99) < 8s', 'rate(429) == 0', 'rate(errors) < 1%'], byPhase: { ramp: ['count(504) == 0'] } },
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
    expect(s.thresholds.byPhase.get('ramp')).toEqual([{ kind: 'count', source: 'count(504) == 0', of: '504', op: '==', count: 0 }]);
    expect(s.notice).toEqual({ announcedOn: '2026-11-01', reference: 'SUP-1234' });
  });

  it.each([
    { name: 'an unknown field', edit: 'phases:\n  - name: a\n    duration: 1m\n    rpm: 100\n    rmp: 5', problem: 'phases[0].rmp: unknown field (check its spelling against loadproof schema)' },
    { name: 'a wrong type', edit: 'phases:\n  - name: a\n    duration: 1m\n    rpm: fast', problem: 'phases[0].rpm: expected rpm as a number of requests per minute, got "fast"' },
    { name: 'a negative rate', edit: 'phases:\n  - name: a\n    duration: 1m\n    rpm: -5', problem: 'phases[0].rpm: expected rpm > 0 (requests per minute), got -5' },
    { name: 'a zero rate', edit: 'phases:\n  - name: a\n    duration: 1m\n    rpm: 0', problem: 'phases[0].rpm: expected rpm > 0 (requests per minute), got 0' },
    { name: 'a missing duration', edit: 'phases:\n  - name: a\n    rpm: 100', problem: 'phases[0].duration: expected a duration as a string like "90s", "5m" or "1m30s", got nothing' },
    { name: 'a malformed duration', edit: 'phases:\n  - name: a\n    duration: 5 minutes\n    rpm: 100', problem: 'phases[0].duration: expected a duration like "90s", "5m" or "1m30s" (units ms, s, m, h), greater than zero, got "5 minutes"' },
    { name: 'a ramp without an end', edit: 'phases:\n  - name: a\n    duration: 1m\n    fromRpm: 100', problem: 'phases[0].toRpm: a ramp needs toRpm (the rate at its end), got nothing' },
    { name: 'no rate at all', edit: 'phases:\n  - name: a\n    duration: 1m', problem: 'phases[0].rpm: expected rpm (constant rate) or fromRpm and toRpm (ramp), got nothing' },
    { name: 'both a rate and a ramp', edit: 'phases:\n  - name: a\n    duration: 1m\n    rpm: 1\n    fromRpm: 1\n    toRpm: 2', problem: 'phases[0].rpm: give either rpm (constant) or fromRpm and toRpm (ramp), not both, got 1' },
    { name: 'a warm-up as long as the phase', edit: 'phases:\n  - name: a\n    duration: 1m\n    rpm: 1\n    warmup: 60s', problem: 'phases[0].warmup: expected warmup shorter than the phase (1m), got "60s"' },
    { name: 'no phases', edit: 'phases: []', problem: 'phases: expected at least one phase' },
    { name: 'a bad threshold', edit: 'phases:\n  - name: a\n    duration: 1m\n    rpm: 1\nthresholds:\n  all: ["p(95) < soon"]', problem: 'thresholds.all[0]: p(…) compares with a duration like 2500ms or 4s, got "soon"' },
  ])('refuses $name, naming the field, the value and what was expected', ({ edit, problem }) => {
    const text = `name: t\ndescription: d\n${edit}\n`;
    expect(problemsOf(text)).toContain(problem);
  });

  it('reports every problem at once', () => {
    const problems = problemsOf('name: "bad name!"\nphases:\n  - name: a\n    duration: x\n    rpm: -1\n');
    expect(problems).toHaveLength(4);
    expect(problems.map((p) => p.split(':')[0])).toEqual(['name', 'description', 'phases[0].duration', 'phases[0].rpm']);
  });

  it('says a required field is missing, and what type another one should have', () => {
    const problems = problemsOf('name: t\nphases: 5\n');
    expect(problems).toEqual(['description: missing; expected a string', 'phases: expected a list of phases, got 5']);
    expect(problemsOf('name: t\ndescription: d\nphases: [{name: a, duration: 1m, rpm: 1}]\ntarget: 3\n')).toEqual(['target: expected a mapping of fields, got 3']);
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

  it('reports YAML syntax errors and unreadable JSON as problems of the file', () => {
    expect(problemsOf('name: [unclosed\n')[0]).toMatch(/^\(file\): not valid YAML/);
    expect(problemsOf('{"name": ', 'x.json')[0]).toMatch(/^\(file\): not valid JSON/);
  });

  describe('keys written by the user are data, never properties of Object.prototype', () => {
    const PROTO_NAMES = ['constructor', 'toString', 'valueOf', 'hasOwnProperty'];

    it('reads phases named constructor, toString, valueOf and hasOwnProperty, each with its own thresholds', () => {
      const phases = PROTO_NAMES.map((name) => `  - { name: ${name}, duration: 1m, rpm: 10 }`).join('\n');
      const byPhase = PROTO_NAMES.map((name) => `    ${name}: ["count(504) == 0"]`).join('\n');
      const s = parseScenario(`name: t\ndescription: d\nphases:\n${phases}\nthresholds:\n  byPhase:\n${byPhase}\n`, 't.yaml');
      expect(s.phases.map((p) => p.name)).toEqual(PROTO_NAMES);
      for (const name of PROTO_NAMES) expect(s.thresholds.byPhase.get(name)).toEqual([{ kind: 'count', source: 'count(504) == 0', of: '504', op: '==', count: 0 }]);
      expect(s.thresholds.byPhase.get('__proto__')).toBeUndefined();
    });

    it('finds no thresholds for a phase named after a prototype member when none are given', () => {
      const s = parseScenario('name: t\ndescription: d\nphases:\n  - { name: constructor, duration: 1m, rpm: 10 }\n', 't.yaml');
      expect(s.thresholds.byPhase.get('constructor')).toBeUndefined();
      expect(s.thresholds.byPhase.size).toBe(0);
    });

    it.each([
      ['YAML', 'byphase.yaml', (key: string) => `name: t\ndescription: d\nphases: [{ name: a, duration: 1m, rpm: 1 }]\nthresholds:\n  byPhase:\n    ${key}: ["p(95) < 1s"]\n`],
      ['JSON', 'byphase.json', (key: string) => `{"name": "t", "description": "d", "phases": [{"name": "a", "duration": "1m", "rpm": 1}], "thresholds": {"byPhase": {"${key}": ["p(95) < 1s"]}}}`],
    ])('refuses thresholds.byPhase.__proto__ and .constructor without such phases (%s)', (_, file, text) => {
      for (const key of ['__proto__', 'constructor', 'toString']) {
        expect(problemsOf(text(key), file)).toEqual([`thresholds.byPhase.${key}: no phase is named "${key}"`]);
      }
    });

    it('names a __proto__ field as unknown, at the top level and inside a phase', () => {
      expect(problemsOf('{"name": "t", "description": "d", "phases": [{"name": "a", "duration": "1m", "rpm": 1, "__proto__": {"rpm": 2}}], "__proto__": {"x": 1}}', 'p.json')).toEqual([
        'phases[0].__proto__: unknown field (check its spelling against loadproof schema)',
        '__proto__: unknown field (check its spelling against loadproof schema)',
      ]);
    });
  });
});
