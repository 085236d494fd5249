import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';

import { junitSchemaProblems } from '../../test/helpers/junit-schema.js';
import type { BaselineComparison, Summary } from '../judge/index.js';
import { junitXml, xmlText } from './junit.js';

const check = (phase: string | null, id: string, status: 'pass' | 'fail' | 'inconclusive', reason: string) => ({
  id,
  phase,
  what: `${id} <of> ${phase ?? 'run'}`,
  status,
  observed: status === 'inconclusive' ? null : 1234.5,
  interval: (id.startsWith('latency') ? [1100, 'unanswered'] : null) as readonly [number, number | 'unanswered'] | null,
  reason,
});

/** A judged run's summary, as far as junit.xml reads it. */
const summary = (
  checks: ReturnType<typeof check>[],
  notes: string[] = [],
  more: Record<string, unknown> = {},
): Summary =>
  ({
    scenario: 'ci-regression',
    environment: 'mock',
    target: { kind: 'embedded-mock', baseUrl: 'http://127.0.0.1:1', profile: 'nominal', embeddedMock: true },
    planIdentity: 'sha256:abc',
    loadproofVersion: '0.1.0',
    timeScale: 20,
    startedAt: '2026-11-26T02:00:00.000Z',
    endedAt: '2026-11-26T02:01:00.000Z',
    partial: false,
    exitCode: 0,
    files: [],
    stopped: null,
    modelDurationS: 1200,
    phases: [
      { name: 'steady', startS: 0, durationS: 600 },
      { name: 'burst', startS: 600, durationS: 600 },
    ],
    verdict: { status: checks.some((c) => c.status === 'fail') ? 'fail' : 'pass', reasons: [], notes, checks },
    ...more,
  }) as unknown as Summary;

const parse = (xml: string): any =>
  new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    htmlEntities: true,
    isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name),
  }).parse(xml);

describe('junit.xml', () => {
  const checks = [
    check('steady', 'latency_p95_target', 'pass', 'p95 under 2.5 s'),
    check('steady', 'threshold', 'fail', 'p(50) < 100ms: 1,234 ms & over "it"'),
    check('burst', 'latency_p95_target', 'inconclusive', 'too few samples: needs 59'),
    check(null, 'errors', 'pass', 'no errors'),
  ];

  it('has one suite per phase and one for the whole run, one case per check: failures with their reason, inconclusive as skipped', () => {
    const xml = junitXml(summary(checks, ['the generator was late in burst']));
    expect(XMLValidator.validate(xml)).toBe(true);
    const root = parse(xml).testsuites;
    expect(root).toMatchObject({ tests: '4', failures: '1', skipped: '1', errors: '0' });
    expect(root.testsuite.map((s: any) => [s.name, s.tests, s.failures, s.skipped])).toEqual([
      ['ci-regression / steady', '2', '1', '0'],
      ['ci-regression / burst', '1', '0', '1'],
      ['ci-regression (whole run)', '1', '0', '0'],
    ]);
    const [steady, burst] = root.testsuite;
    expect(steady.testcase[1].failure).toMatchObject({
      message: 'p(50) < 100ms: 1,234 ms & over "it"',
      type: 'threshold',
    });
    expect(steady.testcase[0].failure).toBeUndefined();
    expect(steady.testcase[0].name).toBe('latency_p95_target: latency_p95_target <of> steady');
    expect(steady.testcase[0].classname).toBe('loadproof.ci-regression.steady');
    expect(steady.testcase[0]['system-out']).toContain('95 % interval [1100, unanswered]');
    expect(burst.testcase[0].skipped.message).toBe('inconclusive: too few samples: needs 59');
    const props = Object.fromEntries(steady.properties.property.map((p: any) => [p.name, p.value]));
    expect(props).toMatchObject({
      scenario: 'ci-regression',
      verdict: 'fail',
      planIdentity: 'sha256:abc',
      note: 'the generator was late in burst',
      partial: 'false',
    });
  });

  it('is well-formed whatever the texts hold: markup, quotes, control characters, lone surrogates', () => {
    const nasty = 'a<b>&"c\'\u0000\u0007\u001b[31m\uD800 end \u{1F600}';
    const xml = junitXml(summary([check('steady', 'threshold', 'fail', nasty)]));
    expect(XMLValidator.validate(xml)).toBe(true);
    const message = parse(xml).testsuites.testsuite[0].testcase[0].failure.message;
    expect(message).toBe('a<b>&"c\'\uFFFD\uFFFD\uFFFD[31m\uFFFD end \u{1F600}');
    expect(xmlText('\t\n\r ok')).toBe('\t\n\r ok');
  });

  it('has no suite for the whole run when every check has a phase, and reads a run with no checks as zero tests', () => {
    expect(parse(junitXml(summary(checks.slice(0, 3)))).testsuites.testsuite).toHaveLength(2);
    const empty = parse(junitXml(summary([])));
    expect(empty.testsuites).toMatchObject({ tests: '0', failures: '0', skipped: '0' });
  });

  it('shows a run that failed or was interrupted as a test case in error, even when every check passed', () => {
    const passing = [check('steady', 'latency_p95_target', 'pass', 'ok')];
    const failed = parse(
      junitXml(
        summary(passing, [], { exitCode: 4, partial: true, files: [{ file: 'events.ndjson', error: 'ENOSPC' }] }),
      ),
    ).testsuites;
    expect(failed).toMatchObject({ tests: '2', errors: '1', failures: '0' });
    const whole = failed.testsuite.at(-1);
    expect(whole.name).toBe('ci-regression (whole run)');
    expect(whole.testcase[0].error).toMatchObject({
      type: 'run_failed',
      message:
        'the run did not record its end: judged from the events it wrote (partial); events.ndjson not written whole (ENOSPC)',
    });
    const stopped = parse(
      junitXml(
        summary(passing, [], {
          exitCode: 130,
          stopped: { by: 'signal', code: 'INTERRUPTED', message: 'stopped by a signal' },
        }),
      ),
    ).testsuites;
    expect(stopped.testsuite.at(-1).testcase[0].error.message).toBe('stopped: INTERRUPTED: stopped by a signal');
    expect(parse(junitXml(summary(passing))).testsuites.errors).toBe('0');
  });

  const props = (s: any) => Object.fromEntries(s.properties.property.map((p: any) => [p.name, p.value]));
  const seconds = (t: string): number => Math.round(Number(t) * 1000);
  /** Every suite's time is its cases' sum, and the suites' sum is at most the file's: what CI adds up stays true. */
  const expectTimesAddUp = (root: any) => {
    for (const s of root.testsuite)
      expect(s.testcase.reduce((sum: number, c: any) => sum + seconds(c.time), 0)).toBe(seconds(s.time));
    expect(root.testsuite.reduce((sum: number, s: any) => sum + seconds(s.time), 0)).toBeLessThanOrEqual(
      seconds(root.time),
    );
  };

  it("times each suite in wall seconds: a phase's schedule at the run's time scale, the whole run's suite the rest", () => {
    // The phases' 600 model seconds at k = 20 are 30 wall seconds each; the run took 65 wall seconds (startedAt to
    // endedAt), set-up included: the whole run's suite holds the 5 the phases leave.
    const root = parse(junitXml(summary(checks, [], { endedAt: '2026-11-26T02:01:05.000Z' }))).testsuites;
    expect(root.time).toBe('65');
    expect(root.testsuite.map((s: any) => [s.name, s.time])).toEqual([
      ['ci-regression / steady', '30'],
      ['ci-regression / burst', '30'],
      ['ci-regression (whole run)', '5'],
    ]);
    // A suite's cases share its time: steady's two checks 15 s each.
    expect(root.testsuite.flatMap((s: any) => s.testcase.map((c: any) => c.time))).toEqual(['15', '15', '30', '5']);
    expectTimesAddUp(root);
    expect(props(root.testsuite[0]).timeUnit).toBe(
      'wall seconds (this suite: 600 model seconds at time scale 20; its cases share it equally)',
    );
    expect(props(root.testsuite[2]).timeUnit).toBe(
      "wall seconds (this suite: the run (the run from startedAt to endedAt, set-up included; its schedule: 1200 model seconds at time scale 20) less its phases' suites: set-up, token and drain; its cases share it equally)",
    );
    expect(junitSchemaProblems(junitXml(summary(checks, [], { endedAt: null, timeScale: 7 })))).toEqual([]);
  });

  it('counts each wall second once: nine checks of a phase share its time, so the cases add up to the run', () => {
    // A capacity-step run at k = 20: nine phases of 120 model s (6 wall s each), three checks each, 60 wall s in all.
    const phases = Array.from({ length: 9 }, (_, i) => ({ name: `step-${i + 1}`, startS: i * 120, durationS: 120 }));
    const many = phases.flatMap((p) =>
      ['latency_p95_target', 'errors', 'rate_limited'].map((id) => check(p.name, id, 'pass', 'ok')),
    );
    const root = parse(
      junitXml(summary(many, [], { phases, modelDurationS: 1080, endedAt: '2026-11-26T02:01:00.000Z' })),
    ).testsuites;
    const cases = root.testsuite.flatMap((s: any) => s.testcase.map((c: any) => seconds(c.time)));
    expect(cases).toHaveLength(27);
    expect(cases.reduce((a: number, b: number) => a + b, 0)).toBeLessThanOrEqual(seconds(root.time));
    expect(root.testsuite[0].testcase.map((c: any) => c.time)).toEqual(['2', '2', '2']);
    expectTimesAddUp(root);
    // Thirds of a millisecond-rounded time still add up exactly.
    const odd = parse(junitXml(summary(many, [], { phases, modelDurationS: 1080, timeScale: 7, endedAt: null })));
    expectTimesAddUp(odd.testsuites);
  });

  it('cuts the phases off where a partial or interrupted run stopped, not at their planned end', () => {
    // The run stopped 900 model seconds in (its last event): steady ran whole (30 wall s), burst half (15), and the
    // whole run, not recorded, is its 45 s of schedule.
    const partial = parse(
      junitXml(
        summary(checks, [], { endedAt: null, partial: true, interrupted: true, exitCode: 4, modelDurationS: 900 }),
      ),
    ).testsuites;
    expect(partial.time).toBe('45');
    expect(partial.testsuite.map((s: any) => s.time)).toEqual(['30', '15', '0']);
    expect(props(partial.testsuite[1]).timeUnit).toBe(
      'wall seconds (this suite: 300 of its 600 model seconds at time scale 20: the run stopped; its cases share it equally)',
    );
    expectTimesAddUp(partial);
    // Interrupted in the first phase with its end recorded: the second phase never ran.
    const interrupted = parse(
      junitXml(
        summary(checks, [], {
          interrupted: true,
          exitCode: 130,
          modelDurationS: 200,
          endedAt: '2026-11-26T02:00:12.000Z',
        }),
      ),
    ).testsuites;
    expect(interrupted.testsuite.map((s: any) => s.time)).toEqual(['10', '0', '2']);
    expectTimesAddUp(interrupted);
    // A partial run at k = 3 that stopped at 100 model seconds: its time to the millisecond.
    const third = parse(
      junitXml(summary(checks, [], { endedAt: null, partial: true, modelDurationS: 100, timeScale: 3 })),
    );
    expect(third.testsuites.time).toBe('33.333');
    expectTimesAddUp(third.testsuites);
  });

  it("says a percentile's figures are model ms, to the microsecond", () => {
    const precise = {
      ...check('steady', 'threshold', 'pass', 'ok'),
      interval: [1658.9508348386782, 3201.023] as const,
    };
    const [steady] = parse(junitXml(summary([{ ...precise, observed: 2279.4231 }, checks[0]!]))).testsuites.testsuite;
    expect(steady.testcase[0]['system-out']).toBe(
      'ok (observed 2279.423 model ms; 95 % interval [1658.951, 3201.023] model ms)',
    );
    expect(steady.testcase[1]['system-out']).toBe(
      'p95 under 2.5 s (observed 1234.5 model ms; 95 % interval [1100, unanswered] model ms)',
    );
  });

  it('names the baseline cases by phase and check only, whatever folder the baseline is in', () => {
    const comparison = (baselineDir: string, regression: boolean): BaselineComparison =>
      ({
        baselineDir,
        regression,
        phases: [
          {
            phase: 'steady',
            findings: regression ? [{ figure: 'p95', kind: 'regression', text: 'p95 rose' }] : [],
          },
        ],
      }) as unknown as BaselineComparison;
    const cases = (xml: string) =>
      parse(xml).testsuites.testsuite.flatMap((s: any) => s.testcase.map((c: any) => `${c.classname} ${c.name}`));
    const one = junitXml(summary(checks), comparison('/ci/runs/2026-11-01/ci-regression-a1b2', false));
    const other = junitXml(summary(checks), comparison('/tmp/elsewhere/baseline', true));
    expect(cases(one)).toEqual(cases(other));
    expect(cases(one)).toContain(
      'loadproof.ci-regression.baseline baseline: steady: no clear regression against the baseline',
    );
    // The folder is in the case's text and the suite's properties.
    const baselineSuite = (xml: string) =>
      parse(xml).testsuites.testsuite.find((s: any) => s.name === 'ci-regression / against the baseline');
    const failed = baselineSuite(other);
    expect(failed.testcase[0].failure.message).toBe('p95 rose (baseline: /tmp/elsewhere/baseline)');
    expect(failed.properties.property).toContainEqual({ name: 'baselineDir', value: '/tmp/elsewhere/baseline' });
    expect(baselineSuite(one).testcase[0]['system-out']).toBe(
      'no clear change for the worse (baseline: /ci/runs/2026-11-01/ci-regression-a1b2)',
    );
    // A comparison made after the run: its phases are timed in their own suites, not twice.
    expect(baselineSuite(one).time).toBe('0');
    expect(parse(one).testsuites.testsuite.reduce((s: number, x: any) => s + Number(x.time), 0)).toBe(60);
    expect(junitSchemaProblems(one)).toEqual([]);
    expect(junitSchemaProblems(other)).toEqual([]);
  });

  it('a change for the worse the tool could have made is a skipped (inconclusive) case, never a pass', () => {
    const comparison = {
      baselineDir: '/ci/base',
      regression: false,
      inconclusive: true,
      phases: [
        { phase: 'steady', findings: [{ figure: 'p95', kind: 'inconclusive', text: "p95 rose: could be the tool's" }] },
      ],
    } as unknown as BaselineComparison;
    const xml = junitXml(summary(checks), comparison);
    const suite = parse(xml).testsuites.testsuite.find((s: any) => s.name === 'ci-regression / against the baseline');
    expect(suite.testcase[0].skipped.message).toBe("inconclusive: p95 rose: could be the tool's (baseline: /ci/base)");
    expect(suite.testcase[0].failure).toBeUndefined();
    expect(junitSchemaProblems(xml)).toEqual([]);
  });

  it('follows the JUnit schema CI reads, for every kind of case', () => {
    expect(junitSchemaProblems(junitXml(summary(checks, ['a note'])))).toEqual([]);
    expect(junitSchemaProblems(junitXml(summary(checks, [], { exitCode: 4, partial: true, endedAt: null })))).toEqual(
      [],
    );
    // The checker itself finds what CI would refuse.
    expect(
      junitSchemaProblems('<testsuites><testsuite name="a" tests="2" time="1e-7"><testcase/></testsuite></testsuites>'),
    ).toEqual([
      'testsuites/testsuite: <testsuite> time="1e-7" is not a decimal ≥ 0',
      'testsuites/testsuite/testcase: <testcase> lacks name',
      'testsuites/testsuite: tests="2" but it holds 1',
    ]);
  });

  it('keeps line breaks in an attribute as line breaks', () => {
    const xml = junitXml(summary([check('steady', 'threshold', 'fail', 'line one\nline two')]));
    expect(xml).toContain('message="line one&#10;line two"');
    expect(parse(xml).testsuites.testsuite[0].testcase[0].failure.message).toBe('line one\nline two');
  });
});
