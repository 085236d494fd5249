/**
 * junit.xml: the verdict in the JUnit XML that GitLab, GitHub Actions (through a test-report action)
 * and Jenkins show natively. One test suite per phase (and one for the checks of the whole run), one
 * test case per check: a failed check is a <failure> with its reason, an inconclusive one <skipped>
 * with its reason (neither passed nor failed: CI must not read it as a pass), a passed one empty.
 * A pure function of summary.json, so `loadproof report` rebuilds it from the run folder.
 */
import type { Summary } from '../judge/index.js';

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
    .map(([name, value]) => ` ${name}="${xmlText(String(value))}"`)
    .join('');

/** What a check measured, in words: its value and, for a percentile, its 95 % interval. */
function measured(check: SummaryCheck): string {
  const value = (v: number | null | 'unanswered' | undefined): string => (v === null || v === undefined ? 'no data' : typeof v === 'string' ? v : String(v));
  const interval = check.interval === null ? '' : `; 95 % interval [${value(check.interval[0])}, ${value(check.interval[1])}]`;
  return `observed ${value(check.observed)}${interval}`;
}

function testCase(check: SummaryCheck, classname: string): string {
  const head = `    <testcase${attrs({ name: `${check.id}: ${check.what}`, classname, time: 0 })}`;
  const detail = xmlText(`${check.reason} (${measured(check)})`);
  if (check.status === 'pass') return `${head}>\n      <system-out>${detail}</system-out>\n    </testcase>`;
  if (check.status === 'fail') return `${head}>\n      <failure${attrs({ message: check.reason, type: check.id })}>${detail}</failure>\n    </testcase>`;
  return `${head}>\n      <skipped${attrs({ message: `inconclusive: ${check.reason}` })}/>\n      <system-out>${detail}</system-out>\n    </testcase>`;
}

interface Suite {
  readonly name: string;
  readonly classname: string;
  readonly timeS: number;
  readonly checks: readonly SummaryCheck[];
}

/** The run's identity, on every suite (JUnit's schema has properties per suite, not per file). */
function properties(summary: Summary): string[] {
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
    ...summary.verdict.notes.map((note): [string, string] => ['note', note]),
  ];
  return ['    <properties>', ...values.map(([name, value]) => `      <property${attrs({ name, value })}/>`), '    </properties>'];
}

function testSuite(suite: Suite, summary: Summary): string {
  const count = (status: string): number => suite.checks.filter((c) => c.status === status).length;
  const head = attrs({ name: suite.name, tests: suite.checks.length, failures: count('fail'), errors: 0, skipped: count('inconclusive'), time: suite.timeS, timestamp: summary.startedAt });
  return [`  <testsuite${head}>`, ...properties(summary), ...suite.checks.map((c) => testCase(c, suite.classname)), '  </testsuite>'].join('\n');
}

/** junit.xml's text for a judged run. */
export function junitXml(summary: Summary): string {
  const checks = summary.verdict.checks;
  const classPrefix = `loadproof.${summary.scenario}`;
  const suites: Suite[] = summary.phases.map((p) => ({ name: `${summary.scenario} / ${p.name}`, classname: `${classPrefix}.${p.name}`, timeS: p.durationS, checks: checks.filter((c) => c.phase === p.name) }));
  const runChecks = checks.filter((c) => c.phase === null || !summary.phases.some((p) => p.name === c.phase));
  if (runChecks.length > 0) suites.push({ name: `${summary.scenario} (whole run)`, classname: classPrefix, timeS: summary.modelDurationS, checks: runChecks });
  const head = attrs({
    name: `loadproof: ${summary.scenario}`,
    tests: checks.length,
    failures: checks.filter((c) => c.status === 'fail').length,
    errors: 0,
    skipped: checks.filter((c) => c.status === 'inconclusive').length,
    time: summary.modelDurationS,
    timestamp: summary.startedAt,
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${head}>`,
    ...suites.map((s) => testSuite(s, summary)),
    '</testsuites>',
    '',
  ].join('\n');
}
