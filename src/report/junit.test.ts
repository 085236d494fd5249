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
      { name: 'steady', durationS: 600 },
      { name: 'burst', durationS: 600 },
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

  it("times each case in wall seconds: the phase a check covers at the run's time scale, the whole run as measured", () => {
    // The phases' 600 model seconds at k = 20 are 30 wall seconds each; the run took a wall minute (startedAt to
    // endedAt), set-up included.
    const root = parse(junitXml(summary(checks))).testsuites;
    expect(root.time).toBe('60');
    expect(root.testsuite.map((s: any) => [s.name, s.time])).toEqual([
      ['ci-regression / steady', '30'],
      ['ci-regression / burst', '30'],
      ['ci-regression (whole run)', '60'],
    ]);
    expect(root.testsuite.flatMap((s: any) => s.testcase.map((c: any) => c.time))).toEqual(['30', '30', '30', '60']);
    const props = (s: any) => Object.fromEntries(s.properties.property.map((p: any) => [p.name, p.value]));
    expect(props(root.testsuite[0]).timeUnit).toBe('wall seconds (this suite: 600 model seconds at time scale 20)');
    expect(props(root.testsuite[2]).timeUnit).toBe(
      'wall seconds (this suite: the run from startedAt to endedAt, set-up included; its schedule: 1200 model seconds at time scale 20)',
    );
    // A run that did not record its end: the schedule's model duration at k, to the millisecond.
    const partial = parse(junitXml(summary(checks, [], { endedAt: null, modelDurationS: 100, timeScale: 3 })));
    expect(partial.testsuites.time).toBe('33.333');
    expect(junitSchemaProblems(junitXml(summary(checks, [], { endedAt: null, timeScale: 7 })))).toEqual([]);
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
    expect(baselineSuite(one).testcase[0].time).toBe('30');
    expect(junitSchemaProblems(one)).toEqual([]);
    expect(junitSchemaProblems(other)).toEqual([]);
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
