/**
 * junit.xml as CI reads it across runs, through the real CLI: a run, then two runs compared with baselines in
 * different folders. CI keeps a test's history by its suite, class name and name, so every case must be named
 * alike in all three (the baseline's folder in its text, never its name); each file follows the JUnit schema;
 * times are wall seconds of what each case covers, as summary.json gives them.
 */
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';

import { runCli, runFolders, scenarioWorkspace } from '../helpers/cli.js';
import { junitSchemaProblems } from '../helpers/junit-schema.js';

const SCENARIO =
  'name: tracked\ndescription: junit across runs\ntarget: { environment: mock, profile: zero }\nphases:\n  - { name: steady, duration: 40s, rpm: 90, warmup: 5s }\n  - { name: busy, duration: 20s, rpm: 150 }\n';
const K = 20;

/** One run of SCENARIO in a process of its own, compared with `baseline` when given; its folder. */
async function runOnce(baseline?: string): Promise<string> {
  const ws = scenarioWorkspace(SCENARIO);
  const run = await runCli([
    'run',
    '--no-charts',
    ws.file,
    '--time-scale',
    String(K),
    ...(baseline === undefined ? [] : ['--baseline', baseline]),
    '--out',
    ws.out,
  ]);
  // A busy machine may make a run late (inconclusive) or its comparison a regression: the names do not change.
  expect([0, 1, 5], run.stderr).toContain(run.code);
  return join(ws.out, runFolders(ws.out)[0]!);
}

const parse = (xml: string): any =>
  new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name),
  }).parse(xml).testsuites;

/** Every case as CI's history keys it: suite, class name and name. */
const caseKeys = (root: any): string[] =>
  root.testsuite.flatMap((s: any) => s.testcase.map((c: any) => `${s.name} | ${c.classname} | ${c.name}`));

describe('junit.xml across runs', () => {
  it('names every case alike whatever the folders and baselines, follows the schema, and times in wall seconds', async () => {
    const first = await runOnce();
    const compared = await runOnce(first);
    // The same baseline in another folder, as CI has it when it keeps a new one.
    const moved = join(mkdtempSync(join(tmpdir(), 'loadproof-baseline-')), 'kept', 'baseline');
    cpSync(first, moved, { recursive: true });
    const again = await runOnce(moved);

    const xml = [first, compared, again].map((folder) => readFileSync(join(folder, 'junit.xml'), 'utf8'));
    for (const text of xml) expect(junitSchemaProblems(text)).toEqual([]);
    const [plain, one, other] = xml.map(parse);
    expect(caseKeys(one)).toEqual(caseKeys(other));
    // Each key once: two cases under one key would be one test to CI.
    expect(new Set(caseKeys(one)).size).toBe(caseKeys(one).length);
    const baselineCases = caseKeys(one).filter((k) => k.includes('against the baseline'));
    expect(baselineCases).toEqual([
      'tracked / against the baseline | loadproof.tracked.baseline | baseline: steady: no clear regression against the baseline',
      'tracked / against the baseline | loadproof.tracked.baseline | baseline: busy: no clear regression against the baseline',
    ]);
    // The run's own checks are named as in a run without a baseline.
    expect(caseKeys(one).filter((k) => !baselineCases.includes(k))).toEqual(caseKeys(plain));
    expect(xml.join('\n')).not.toMatch(/name="[^"]*loadproof-(test|baseline)-/);
    // Which baseline it was is in the case's text and the suite's properties.
    const baselineSuite = other.testsuite.find((s: any) => s.name === 'tracked / against the baseline');
    expect(baselineSuite.properties.property).toContainEqual({ name: 'baselineDir', value: moved });
    const text = (c: any): string => c.failure?.message ?? c['system-out'];
    for (const c of baselineSuite.testcase) expect(text(c)).toContain(`(baseline: ${moved})`);

    // Times: a phase's suite its wall seconds at k, shared by its cases; the run as measured from startedAt to
    // endedAt; each wall second counted once, as CI adds them up.
    const summary = JSON.parse(readFileSync(join(again, 'summary.json'), 'utf8'));
    const wallMs = (modelS: number): number => Math.round((modelS / K) * 1000);
    const ms = (t: string): number => Math.round(Number(t) * 1000);
    for (const phase of summary.phases) {
      const suite = other.testsuite.find((s: any) => s.name === `tracked / ${phase.name}`);
      expect(ms(suite.time)).toBe(wallMs(phase.startS + phase.durationS) - wallMs(phase.startS));
      expect(suite.testcase.reduce((sum: number, c: any) => sum + ms(c.time), 0)).toBe(ms(suite.time));
      expect(suite.properties.property).toContainEqual({
        name: 'timeUnit',
        value: `wall seconds (this suite: ${phase.durationS} model seconds at time scale ${K}; its cases share it equally)`,
      });
    }
    expect(Number(other.time)).toBe((Date.parse(summary.endedAt) - Date.parse(summary.startedAt)) / 1000);
    expect(other.testsuite.reduce((sum: number, s: any) => sum + ms(s.time), 0)).toBeLessThanOrEqual(ms(other.time));
  });
});
