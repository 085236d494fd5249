/**
 * `loadproof compare <baseline-dir> <run-dir>`. Two runs of the same scenario against the
 * nominal mock show no clear change (exit 0); the same scenario against the degraded mock is a
 * regression (exit 1) whose p95 interval lies above the baseline's. Bad input is exit 2 and names
 * what was wrong. Each folder is judged again offline; nothing is written to them.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { runCli, runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';

const SCENARIO =
  'name: compared\ndescription: a run to compare\nphases:\n  - { name: steady, duration: 1m, rpm: 100, warmup: 10s }\n  - { name: busy, duration: 40s, rpm: 200 }\n';
// k = 20: at k = 60 a stall of a busy machine (two CPU hogs and other work on 2 cores) of a third of a second is
// 20 s of model time, and a nominal run came out with unanswered requests: a "regression" against its twin.
const K = '20';

/**
 * One run of SCENARIO against the embedded mock of `profile`, in a process of its own; its folder. Three runs
 * in this one thread stalled each other: each one's warm-up (a second of CPU and a full collection) blocks
 * the event loop the others are already sending on, and beside other load that reached 2 s (40 s of model
 * time at k = 20: timeouts in a nominal run).
 */
async function runAgainst(profile: string): Promise<string> {
  const ws = scenarioWorkspace(SCENARIO);
  const run = await runCli([
    'run',
    '--no-charts',
    ws.file,
    '--time-scale',
    K,
    '--mock-profile',
    profile,
    '--out',
    ws.out,
  ]);
  expect([0, 1, 5], run.stderr).toContain(run.code);
  return join(ws.out, runFolders(ws.out)[0]!);
}

/**
 * A copy of a run folder whose event loop was 100 s late (p99 and max, wall ms): its verdict notes every phase late.
 */
function madeLate(folder: string): string {
  const late = join(mkdtempSync(join(tmpdir(), 'loadproof-late-')), 'run');
  cpSync(folder, late, { recursive: true });
  const run = JSON.parse(readFileSync(join(late, 'run.json'), 'utf8'));
  writeFileSync(
    join(late, 'run.json'),
    JSON.stringify({ ...run, end: { ...run.end, eventLoopDelayP99Ms: 100_000, eventLoopDelayMaxMs: 100_000 } }),
  );
  return late;
}

/**
 * A copy of a run folder whose embedded mock's own lag is `mockLag` in run.json (undefined: none recorded, as if it
 * had kept up). The degraded mock's regression is found only where its mock's lag could not explain it, and on a
 * starved machine it can: the tests of what a regression shows read the degraded run as if its mock had kept up.
 */
function withMockLag(folder: string, mockLag?: object): string {
  const copy = join(mkdtempSync(join(tmpdir(), 'loadproof-mock-lag-')), 'run');
  cpSync(folder, copy, { recursive: true });
  const run = JSON.parse(readFileSync(join(copy, 'run.json'), 'utf8'));
  writeFileSync(join(copy, 'run.json'), JSON.stringify({ ...run, end: { ...run.end, mockLag } }));
  return copy;
}

let nominalA: string;
let nominalB: string;
let degraded: string;

beforeAll(async () => {
  [nominalA, nominalB, degraded] = await Promise.all([
    runAgainst('nominal'),
    runAgainst('nominal'),
    runAgainst('degraded'),
  ]);
  degraded = withMockLag(degraded);
}, 90_000);

describe('loadproof compare', () => {
  it('two runs of the same scenario against the same mock: no clear change, exit 0', async () => {
    const before = readdirSync(nominalB).sort();
    const { code, stdout } = await runMain(['compare', nominalA, nominalB]);
    // Never a regression. On a machine busy enough to make the tool late (the suite beside CPU hogs: p95 2.50 s →
    // 4.72 s with 25 s of model lateness), the honest answer is that the tool could have made the change: exit 5.
    expect([0, 5], stdout).toContain(code);
    expect(stdout).toContain(`${nominalB} (compared, `);
    expect(stdout).toMatch(/^ {2}phase +p50 +p95 \[95 % interval\] +p99 +429 rate +504 rate +other failures$/m);
    expect(stdout).toMatch(/^ {2}steady +\S+ → \S+ /m);
    expect(stdout).toMatch(/^ {2}busy +\S+ → \S+ /m);
    if (code === 0) expect(stdout).toContain('result: no clear change for the worse — exit 0');
    else expect(stdout).toMatch(/could be the tool's: .*result: INCONCLUSIVE: .* — exit 5/s);
    expect(stdout).not.toContain('regression:');
    expect(readdirSync(nominalB).sort()).toEqual(before); // judged in memory: nothing written
  });

  it('a run whose generator was late enough to make its p95 change is inconclusive (exit 5), and says why; a late baseline cannot make a regression', async () => {
    // The degraded run as a far busier machine would have left it: its event loop 100 s late (p99 and max, wall ms), as
    // latency counts it at k = 20 (once) more than any of its latencies, so that it could have made the whole change.
    const late = madeLate(degraded);
    const { code, stdout } = await runMain(['compare', nominalA, late]);
    expect(code, stdout).toBe(5);
    expect(stdout).not.toMatch(/regression: \w+: p95/);
    expect(stdout).toMatch(
      /inconclusive: busy: p95 .* the new interval lies above the baseline's by more than 10 %, but not with the tool's worst lateness \(\S+ of model time\) taken off the run's interval: .* could be the tool's: the run's generator was late \(its verdict says so\)/,
    );
    expect(stdout).toMatch(
      /result: INCONCLUSIVE: \d+ changes? for the worse the tool's own lateness could have made — exit 5/,
    );
    expect(stdout).not.toContain('no clear change for the worse');
    // The same lateness in the baseline only makes the baseline look worse: the regression stands (exit 1).
    const lateBaseline = await runMain(['compare', madeLate(nominalA), degraded]);
    expect(lateBaseline.code, lateBaseline.stdout).toBe(1);
    expect(lateBaseline.stdout).toMatch(
      /regression: busy: p95 .* the new interval lies above the baseline's by more than 10 %/,
    );
  });

  it('a run whose embedded mock fell behind enough to make its p95 change is inconclusive (exit 5), and says why', async () => {
    // 5 s of wall time behind at k = 20: 100 s of model time it could add to a latency, more than the whole change.
    const behind = withMockLag(degraded, { p99WallMs: 100, maxWallMs: 5020, windowWallMs: 20, modelMs: 100_000 });
    const { code, stdout } = await runMain(['compare', nominalA, behind]);
    expect(code, stdout).toBe(5);
    expect(stdout).not.toMatch(/regression: \w+: p95/);
    expect(stdout).toMatch(
      /inconclusive: busy: p95 .* could be the tool's: .*the embedded mock fell behind \(the run's verdict says so\)/,
    );
    expect(stdout).toMatch(/result: INCONCLUSIVE: .* — exit 5/);
    expect(stdout).not.toContain('no clear change for the worse');
    const verdict = await runMain(['report', behind, '--no-charts']);
    expect(verdict.stdout).toContain(
      "note: The embedded mock fell behind by up to 5.02s (wall), which could add 100.00s of model time to a latency — not the service's",
    );
  });

  it("the same scenario against the degraded mock: a regression, exit 1, its p95 interval above the baseline's", async () => {
    // The degraded p95 is far above the nominal one, more than any lateness of a busy machine: taking the degraded
    // run's worst lateness off (when its verdict notes it late) leaves the regression, and a late baseline cannot undo
    // it.
    const { code, stdout } = await runMain(['compare', nominalA, degraded]);
    expect(code, stdout).toBe(1);
    expect(stdout).toMatch(
      /regression: busy: p95 \S+ \(interval \S+–\S+\) against \S+ \(\S+–\S+\): the new interval lies above the baseline's by more than 10 %/,
    );
    expect(stdout).toMatch(/result: REGRESSION: \d+ clear changes? for the worse — exit 1/);
    // The other way round the degraded run is the baseline: the nominal one is better, not a regression.
    const reverse = await runMain(['compare', degraded, nominalA]);
    expect(reverse.code).toBe(0);
    expect(reverse.stdout).toContain('better: busy: p95');
  });

  it('--json prints the comparison; --tolerance moves the bar', async () => {
    const json = await runMain(['compare', nominalA, degraded, '--json']);
    expect(json.code).toBe(1);
    const comparison = JSON.parse(json.stdout);
    expect(comparison).toMatchObject({
      tolerance: 0.1,
      alpha: 0.01,
      regression: true,
      onlyInBaseline: [],
      onlyInRun: [],
    });
    const busy = comparison.phases.find((p: any) => p.phase === 'busy');
    expect(busy.run.p95Interval[0]).toBeGreaterThan(busy.baseline.p95Interval[1] * 1.1);
    // A tolerance far above the change: no clear regression of p95 any more.
    const lenient = JSON.parse(
      (await runMain(['compare', nominalA, degraded, '--json', '--tolerance', '1000%'])).stdout,
    );
    expect(
      lenient.phases.flatMap((p: any) => p.findings).filter((f: any) => f.figure === 'p95' && f.kind === 'regression'),
    ).toEqual([]);
  });

  it('run --baseline: the comparison in the terminal, comparison.json, report.md, report.html and junit.xml; exit 1; report rebuilds it', async () => {
    const ws = scenarioWorkspace(SCENARIO);
    const run = await runMain([
      'run',
      '--no-charts',
      ws.file,
      '--time-scale',
      K,
      '--mock-profile',
      'degraded',
      '--baseline',
      nominalA,
      '--out',
      ws.out,
    ]);
    const folder = join(ws.out, runFolders(ws.out)[0]!);
    const comparison = JSON.parse(readFileSync(join(folder, 'comparison.json'), 'utf8'));
    if (!comparison.regression) {
      // Its own embedded mock fell behind far enough (a starved machine) to explain the change: never a regression
      // then, nor "no clear change": inconclusive, and the comparison says so.
      // Its generator or its mock was late (either phase may show it).
      expect(comparison.inconclusive).toBe(true);
      expect(run.stdout).toMatch(
        /inconclusive: \w+: p95 .* could be the tool's: (the run's generator was late|the embedded mock fell behind)/,
      );
      expect(run.code).not.toBe(0);
      return;
    }
    // Found whether or not either run was late, when the degraded run's mock kept up.
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain(`against the baseline ${nominalA} (compared, `);
    // Each phase regressed; one whose run was late by more than its margin (beside two CPU hogs: the generator's 63 ms
    // stall is 3.8 s of model time at k = 20) is honestly inconclusive, the other still a regression.
    expect(run.stdout).toMatch(
      /regression: (steady|busy): p95 .* the new interval lies above the baseline's by more than 10 %/,
    );
    expect(comparison).toMatchObject({ baselineDir: nominalA, regression: true, tolerance: 0.1 });
    const md = readFileSync(join(folder, 'report.md'), 'utf8');
    expect(md).toContain(`## Against the baseline\n\nCompared with the baseline run in ${nominalA} (compared, `);
    expect(md).toMatch(/\*\*REGRESSION: \d+ clear changes? for the worse\.\*\*/);
    expect(readFileSync(join(folder, 'report.html'), 'utf8')).toContain('<h2>Against the baseline</h2>');
    const junit = readFileSync(join(folder, 'junit.xml'), 'utf8');
    expect(junit).toContain('name="compared / against the baseline"');
    // The comparison is made after the run, whose phases are timed in their own suites: its cases take no time.
    expect(junit).toMatch(
      /<testcase name="baseline: (steady|busy): no clear regression against the baseline" classname="loadproof\.compared\.baseline" time="0">\s*<failure message="p95 /,
    );
    expect(junit).not.toContain('observed no data');
    // Rebuilt from the folder alone, comparison included, with the same exit.
    const again = await runMain(['report', folder, '--no-charts']);
    expect(again.code).toBe(1);
    expect(readFileSync(join(folder, 'report.md'), 'utf8')).toBe(md);
    expect((await runMain(['verify', folder])).code).toBe(0);
    // run.json says it was compared: without comparison.json its evidence is not whole, whatever the run's own verdict
    // (exit 4, said).
    rmSync(join(folder, 'comparison.json'));
    const lost = await runMain(['report', folder]);
    expect(lost.code).toBe(4);
    expect(lost.stderr).toContain(
      `run.json says this run was compared with --baseline ${nominalA}, but its comparison.json is gone or unusable`,
    );
  });

  it('run --baseline with a baseline that shares no phase with the scenario: exit 2 before anything is sent', async () => {
    const ws = scenarioWorkspace(
      'name: other\ndescription: other phases\nphases:\n  - { name: elsewhere, duration: 30s, rpm: 60 }\n',
    );
    const run = await runMain([
      'run',
      '--no-charts',
      ws.file,
      '--time-scale',
      K,
      '--baseline',
      nominalA,
      '--out',
      ws.out,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `--baseline ${nominalA}: none of its phases (steady, busy) is a phase of other (elsewhere)`,
    );
    expect(existsSync(ws.out) ? runFolders(ws.out) : []).toEqual([]);
  });

  it('run --baseline with a folder that is not a run: exit 2 before anything is sent', async () => {
    const ws = scenarioWorkspace(SCENARIO);
    const run = await runMain([
      'run',
      '--no-charts',
      ws.file,
      '--time-scale',
      K,
      '--baseline',
      join(ws.dir, 'nowhere'),
      '--out',
      ws.out,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('not a run folder');
    expect(existsSync(ws.out) ? runFolders(ws.out) : []).toEqual([]); // no run folder: nothing was sent
  });

  it('bad input is exit 2, named: a folder that is not a run, a tolerance that is not one', async () => {
    const missing = await runMain(['compare', nominalA, join(nominalA, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('not a run folder');
    const tolerance = await runMain(['compare', nominalA, nominalB, '--tolerance', 'ten']);
    expect(tolerance.code).toBe(2);
    expect(tolerance.stderr).toContain(
      '--tolerance: expected a percentage like 10% (0 to 1000 %) or a fraction like 0.1 (0 to 1), got "ten"',
    );
    // A bare 10 is not read as 1,000 %.
    const bare = await runMain(['compare', nominalA, nominalB, '--tolerance', '10']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('got "10" (for 10 %, write 10%)');
    // Still nothing measured was touched.
    expect(JSON.parse(readFileSync(join(nominalA, 'summary.json'), 'utf8')).scenario).toBe('compared');
  });
});
