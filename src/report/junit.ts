/**
 * junit.xml: the verdict in the JUnit XML that GitLab, GitHub Actions (through a test-report action)
 * and Jenkins show natively. One test suite per phase (and one for the checks of the whole run), one
 * test case per check: a failed check is a <failure> with its reason, an inconclusive one <skipped>
 * with its reason (neither passed nor failed: CI must not read it as a pass), a passed one empty.
 * Case names are the phase and the check alone (what varies from run to run, as the baseline's folder, is in the
 * case's text), so CI's test history follows a check across runs; times are wall seconds that add up (junit-time.ts).
 * A pure function of summary.json, so `loadproof report` rebuilds it from the run folder.
 */
import type { BaselineComparison, Summary } from '../judge/index.js';
import { caseTimes, comparisonTime, phaseTime, restTime, runTime, type SuiteTime, timeUnit } from './junit-time.js';
import { inTargetWords } from './target-text.js';

type SummaryCheck = Summary['verdict']['checks'][number];

/**
 * Text made safe for an XML 1.0 attribute or element: the five special characters escaped, and the
 * characters XML 1.0 forbids (most C0 controls, lone surrogates, U+FFFE/U+FFFF) replaced by U+FFFD.
 */
export function xmlText(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const attrs = (values: Record<string, string | number>): string =>
  Object.entries(values)
    // Line breaks as references: a parser turns literal ones in an attribute into spaces.
    .map(
      ([name, value]) =>
        ` ${name}="${xmlText(String(value)).replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;')}"`,
    )
    .join('');

/**
 * What a check measured, in words: its value and, for a percentile, its 95 % interval, in model ms to the
 * microsecond (a comparison's figures are in its reason). A check without an interval counts or takes a rate: no unit.
 */
function measured(check: SummaryCheck): string {
  if (check.id === 'baseline') return '';
  const unit = check.interval === null ? '' : ' model ms';
  const value = (v: number | null | 'unanswered' | undefined): string =>
    v === null || v === undefined ? 'no data' : typeof v === 'string' ? v : String(Math.round(v * 1000) / 1000);
  const observed = `observed ${value(check.observed)}${typeof check.observed === 'number' ? unit : ''}`;
  const interval =
    check.interval === null ? '' : `; 95 % interval [${value(check.interval[0])}, ${value(check.interval[1])}]${unit}`;
  return `${observed}${interval}`;
}

function testCase(check: SummaryCheck, classname: string, wallS: number): string {
  const head = `    <testcase${attrs({ name: `${check.id}: ${check.what}`, classname, time: wallS })}`;
  const figures = measured(check);
  const detail = xmlText(figures === '' ? check.reason : `${check.reason} (${figures})`);
  if (check.status === 'pass') return `${head}>\n      <system-out>${detail}</system-out>\n    </testcase>`;
  if (check.status === 'fail')
    return `${head}>\n      <failure${attrs({ message: check.reason, type: check.id })}>${detail}</failure>\n    </testcase>`;
  return `${head}>\n      <skipped${attrs({ message: `inconclusive: ${check.reason}` })}/>\n      <system-out>${detail}</system-out>\n    </testcase>`;
}

/**
 * Why the run itself failed (exit 4: stopped by a failure, partial, a file not written) or did not run
 * its plan (exit 130: interrupted), or null. CI must not read such a run as green because the checks of
 * what it did measure passed: it becomes a test case in error.
 */
function runFailure(summary: Summary): string | null {
  if (summary.exitCode !== 4 && summary.exitCode !== 130) return null;
  const unwritten = summary.files
    .filter((f) => f.error !== null)
    .map((f) => `${f.file} not written whole (${f.error})`);
  const reasons = [
    ...(summary.partial ? ['the run did not record its end: judged from the events it wrote (partial)'] : []),
    ...(summary.stopped !== null && summary.stopped.by !== 'unknown'
      ? [`stopped: ${summary.stopped.code}: ${summary.stopped.message}`]
      : []),
    ...unwritten,
  ];
  return reasons.length > 0 ? reasons.join('; ') : `the run failed (exit ${summary.exitCode})`;
}

interface Suite {
  readonly name: string;
  readonly classname: string;
  readonly time: SuiteTime;
  readonly checks: readonly SummaryCheck[];
  /** What this suite alone says of itself, after the run's identity. */
  readonly properties?: readonly [string, string][];
}

/** The run's identity, on every suite (JUnit's schema has properties per suite, not per file). */
function properties(summary: Summary, suite: Suite): string[] {
  const values: [string, string | number][] = [
    ['scenario', summary.scenario],
    ['verdict', summary.verdict.status],
    ['environment', summary.environment],
    ['planIdentity', summary.planIdentity],
    ['loadproofVersion', summary.loadproofVersion],
    ['timeScale', summary.timeScale],
    ['startedAt', summary.startedAt],
    ['endedAt', summary.endedAt ?? ''],
    ['partial', String(summary.partial)],
    ...(!summary.shard
      ? []
      : [
          [
            'shard',
            `${summary.shard.index}/${summary.shard.count}: its share only; the test's verdict is loadproof merge's`,
          ] as [string, string],
        ]),
    ...(!summary.mergedFrom ? [] : [['mergedFrom', `${summary.mergedFrom.length} shards`] as [string, string]]),
    ...summary.verdict.notes.map((note): [string, string] => ['note', inTargetWords(summary, note)]),
    ['timeUnit', timeUnit(suite.time)],
    ...(suite.properties ?? []),
  ];
  return [
    '    <properties>',
    ...values.map(([name, value]) => `      <property${attrs({ name, value })}/>`),
    '    </properties>',
  ];
}

function testSuite(suite: Suite, summary: Summary, failure: string | null): string {
  const count = (status: string): number => suite.checks.filter((c) => c.status === status).length;
  const errors = failure === null ? 0 : 1;
  const head = attrs({
    name: suite.name,
    tests: suite.checks.length + errors,
    failures: count('fail'),
    errors,
    skipped: count('inconclusive'),
    time: suite.time.wallS,
    timestamp: summary.startedAt,
  });
  const times = caseTimes(suite.time, suite.checks.length + errors);
  const errorCase =
    failure === null
      ? []
      : [
          `    <testcase${attrs({ name: 'run: completed and recorded whole', classname: suite.classname, time: times[0]! })}>`,
          `      <error${attrs({ message: failure, type: 'run_failed' })}/>`,
          '    </testcase>',
        ];
  return [
    `  <testsuite${head}>`,
    ...properties(summary, suite),
    ...errorCase,
    ...suite.checks.map((c, i) =>
      testCase({ ...c, reason: inTargetWords(summary, c.reason) }, suite.classname, times[errors + i]!),
    ),
    '  </testsuite>',
  ].join('\n');
}

/**
 * A run's comparison with its baseline as checks: one per phase compared, failed by a clear regression. The
 * baseline's folder is in the reason, not the name: a new baseline must not start a new test in CI's history.
 */
function baselineChecks(c: BaselineComparison): SummaryCheck[] {
  return c.phases.map((p) => {
    const regressions = p.findings.filter((f) => f.kind === 'regression');
    // A change for the worse the tool's own lateness could have made: neither a pass nor a fail.
    const unsure = p.findings.filter((f) => f.kind === 'inconclusive');
    const deciding = regressions.length > 0 ? regressions : unsure;
    const reason = deciding.length > 0 ? deciding.map((f) => f.text).join('; ') : 'no clear change for the worse';
    return {
      id: 'baseline',
      phase: p.phase,
      what: `${p.phase}: no clear regression against the baseline`,
      status: regressions.length > 0 ? 'fail' : unsure.length > 0 ? 'inconclusive' : 'pass',
      observed: null,
      interval: null,
      reason: `${reason} (baseline: ${c.baselineDir})`,
    };
  });
}

/** junit.xml's text for a judged run, and its comparison with a baseline when it has one. */
export function junitXml(summary: Summary, comparison?: BaselineComparison): string {
  const compared = comparison === undefined ? [] : baselineChecks(comparison);
  const checks = [...summary.verdict.checks, ...compared];
  const classPrefix = `loadproof.${summary.scenario}`;
  const own = summary.verdict.checks;
  const suites: Suite[] = summary.phases.map((p) => ({
    name: `${summary.scenario} / ${p.name}`,
    classname: `${classPrefix}.${p.name}`,
    time: phaseTime(summary, p),
    checks: own.filter((c) => c.phase === p.name),
  }));
  if (comparison !== undefined && compared.length > 0)
    suites.push({
      name: `${summary.scenario} / against the baseline`,
      classname: `${classPrefix}.baseline`,
      time: comparisonTime,
      checks: compared,
      properties: [['baselineDir', comparison.baselineDir]],
    });
  const runChecks = own.filter((c) => c.phase === null || !summary.phases.some((p) => p.name === c.phase));
  const failure = runFailure(summary);
  const wholeRun = {
    name: `${summary.scenario} (whole run)`,
    classname: classPrefix,
    time: restTime(summary),
    checks: runChecks,
  };
  const head = attrs({
    // A shard's suite says it is one: CI reading it alone must not take its checks for the test's.
    name: `loadproof: ${summary.scenario}${!summary.shard ? '' : ` (shard ${summary.shard.index}/${summary.shard.count})`}`,
    tests: checks.length + (failure === null ? 0 : 1),
    failures: checks.filter((c) => c.status === 'fail').length,
    errors: failure === null ? 0 : 1,
    skipped: checks.filter((c) => c.status === 'inconclusive').length,
    time: runTime(summary).wallS,
    timestamp: summary.startedAt,
  });
  const suiteTexts = [
    ...suites.map((s) => testSuite(s, summary, null)),
    // The whole run's suite holds its checks, and the run's own failure when it failed.
    ...(runChecks.length > 0 || failure !== null ? [testSuite(wholeRun, summary, failure)] : []),
  ];
  return ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites${head}>`, ...suiteTexts, '</testsuites>', ''].join(
    '\n',
  );
}
