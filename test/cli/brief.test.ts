/**
 * brief.md: a run's evidence as a support ticket wants it, its own file, readable alone. Against the tight mock (30
 * rpm sustained, 60 for two minutes) three steps of 30, 60 and 120 rpm meet 429s: the brief says what was asked and
 * what the service accepted (goodput), when (UTC), the request ids, how the requests were sent, the 429s, and the
 * manifest it belongs to; `verify` checks that hash, `report` writes it again; the client_id is named only when asked.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { reportContent } from '../../src/report/content.js';
import { reportMarkdown } from '../../src/report/markdown.js';
import { parseScenario } from '../../src/scenario/index.js';
import { runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';

const STEPS =
  'name: steps\ndescription: three steps up\nphases:\n  - { name: step-30, duration: 1m, rpm: 30, warmup: 10s }\n  - { name: step-60, duration: 1m, rpm: 60, warmup: 10s }\n  - { name: step-120, duration: 1m, rpm: 120, warmup: 10s }\n';
const CLIENT_ID = 'brief-client-7';
const MOCK_SECRET = 'loadproof-mock-secret';

const utc = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');
const rpm = (v: number): string => (Number.isInteger(v) ? String(v) : v.toFixed(1));

describe('brief.md, the evidence for a support ticket', () => {
  let folder: string;
  let summary: any;
  let brief: string;

  beforeAll(async () => {
    const ws = scenarioWorkspace(STEPS);
    const run = await runMain([
      'run',
      ws.file,
      '--time-scale',
      // 20, not 60: at k = 60 the wall deadline (16 s ÷ 60 + 1 s) timed out 18 answers beside a CPU hog, and the run
      // stopped as TARGET_UNREACHABLE (exit 4) — the tool's doing.
      '20',
      '--mock-profile',
      'tight',
      '--brief-client-id',
      CLIENT_ID,
      '--out',
      ws.out,
    ]);
    expect([0, 1, 5], run.stderr).toContain(run.code);
    folder = join(ws.out, runFolders(ws.out)[0]!);
    summary = JSON.parse(readFileSync(join(folder, 'summary.json'), 'utf8'));
    brief = readFileSync(join(folder, 'brief.md'), 'utf8');
  }, 120_000);

  it('says first that a mock run is the form only, then what was asked and what the service accepted', () => {
    expect(brief.startsWith('# Load-test brief: steps\n\n**This run was against ')).toBe(true);
    expect(brief.indexOf('shows the form only, and is no evidence about the service')).toBeLessThan(
      brief.indexOf('\n## '),
    );
    const top = summary.phases.find((p: any) => p.name === 'step-120');
    const got = Math.round((top.outcomes.ok / (top.durationS / 60)) * 10) / 10;
    expect(brief).toContain(`We need 120 requests a minute sustained for 1m (the highest rate this test offered`);
    expect(brief).toContain(`we got ${rpm(got)}: the requests answered 2xx a minute (goodput) at that rate`);
    // Each phase's goodput from summary.json, beside its offered rate and its request ids.
    let seq = 0;
    for (const p of summary.phases) {
      const row = brief.split('\n').find((l) => l.startsWith(`| ${p.name} |`));
      expect(row, p.name).toBeDefined();
      expect(row).toContain(`| ${p.offeredRpm} | ${seq}–${seq + p.planned - 1} | ${p.sent} | ${p.outcomes.ok} |`);
      expect(row).toContain(`| ${p.goodputRpm.toFixed(1)} | ${p.outcomes.http_429} | ${p.outcomes.http_504} |`);
      seq += p.planned;
    }
    // It says what the service did, never a verdict as if that answered the request.
    expect(brief).not.toMatch(/verdict\s+(PASS|FAIL|INCONCLUSIVE)/i);
  });

  it('gives the UTC window, the request ids on the wire, how the requests were sent, and the 429 timeline', () => {
    expect(brief).toContain(`UTC window to search your logs: ${utc(summary.startedAt)} – ${utc(summary.endedAt)}.`);
    expect(brief).toContain(
      `every request carries the header \`x-loadproof-seq: <n>\`, its number in the plan (0–${summary.counts.planned - 1}`,
    );
    expect(brief).toContain('`x-loadproof-attempt: <k>`');
    expect(brief).toContain('429 policy: record. Each 429 is its request’s outcome; nothing was retried.');
    expect(brief).toContain('at most 128 in flight');
    const p = summary.payload;
    expect(brief).toContain(
      `${p.characters.min}–${p.characters.max} characters (mean ${Math.round(p.characters.mean)}), ${p.estimatedTokens.min}–${p.estimatedTokens.max} estimated tokens`,
    );
    expect(summary.overall.outcomes.http_429).toBeGreaterThan(0);
    expect(brief).toContain(`The first 429 came at ${summary.first429.atS.toFixed(1)} s of model time (`);
    expect(brief).toMatch(/Inside the documented envelope: (none|\d+)\./);
    expect(brief).toContain('No answer was a 504');
  });

  it('names the client_id only when asked, never the secret in any encoding', () => {
    expect(brief).toContain(`client_id: \`${CLIENT_ID}\``);
    const forms = [
      MOCK_SECRET,
      Buffer.from(MOCK_SECRET).toString('base64'),
      Buffer.from(MOCK_SECRET).toString('base64url'),
      Buffer.from(MOCK_SECRET).toString('hex'),
      encodeURIComponent(MOCK_SECRET),
      Buffer.from(`${CLIENT_ID}:${MOCK_SECRET}`).toString('base64'),
    ];
    for (const file of ['brief.md', 'report.md', 'report.html'])
      for (const form of forms)
        expect(readFileSync(join(folder, file), 'utf8'), `${file}: ${form}`).not.toContain(form);
  });

  it('names its manifest: verify checks that hash, report writes the brief again', async () => {
    const manifestSha = sha256(readFileSync(join(folder, 'manifest.json')));
    expect(brief).toContain(`Manifest (manifest.json) SHA-256: \`${manifestSha}\``);
    const intact = await runMain(['verify', folder]);
    expect(intact.code, intact.stdout).toBe(0);
    expect(intact.stdout).toContain('brief.md names this manifest.json');
    expect(intact.stdout).not.toContain('not in the manifest');

    // A brief naming another manifest does not belong to this folder.
    writeFileSync(join(folder, 'brief.md'), brief.replace(manifestSha, 'a'.repeat(64)));
    const other = await runMain(['verify', folder]);
    expect(other.code).toBe(1);
    expect(other.stdout).toContain(`brief.md: names manifest.json sha256:${'a'.repeat(64)}, not this one`);

    // Judged again without --brief-client-id: a new manifest, a brief naming it, and no client_id.
    const report = await runMain(['report', folder, '--no-charts']);
    expect([0, 1, 5], report.stderr).toContain(report.code);
    const again = readFileSync(join(folder, 'brief.md'), 'utf8');
    expect(again).toContain(
      `Manifest (manifest.json) SHA-256: \`${sha256(readFileSync(join(folder, 'manifest.json')))}\``,
    );
    expect(again).toContain('client_id: not named in this brief');
    expect(again).not.toContain(CLIENT_ID);
    expect((await runMain(['verify', folder])).code).toBe(0);
  });

  it('report.md opens with the verdict in one sentence and the key figures, links brief.md, and ends with no brief', () => {
    const md = readFileSync(join(folder, 'report.md'), 'utf8');
    const lines = md.split('\n');
    expect(lines[0]).toBe(`# steps: ${summary.verdict.status.toUpperCase()}`);
    expect(lines[2]).toMatch(new RegExp(`^\\*\\*${summary.verdict.status.toUpperCase()}: .+\\.\\*\\*$`));
    expect(lines[4]).toMatch(
      /^\| Requests sent \| Goodput \| p95, sustained band \| .*\| 429 \(requests\) \| 504 \| Errors \|$/,
    );
    expect(lines[6]).toContain(
      `| ${summary.overall.sent} of ${summary.counts.planned} | ${summary.overall.goodputRpm.toFixed(1)} rpm answered 2xx |`,
    );
    expect(lines[6]).toContain(`| ${summary.overall.outcomes.http_429} | ${summary.overall.outcomes.http_504} |`);
    expect(md.indexOf('[brief.md](brief.md)')).toBeLessThan(md.indexOf('## Results by phase'));
    // The run's metadata comes after the results, the brief is no longer appended.
    expect(md.indexOf('## Run details')).toBeGreaterThan(md.indexOf('## Evidence'));
    expect(md.indexOf('| Scenario file |')).toBeGreaterThan(md.indexOf('## Run details'));
    expect(md).not.toContain('## Limit-increase brief');
  });

  it('a run that did not pass: short reasons open the evidence, the generator lateness is one sentence, its notes below', () => {
    // The run's own summary, as a judgement that the generator's lateness made inconclusive would write it.
    const late = summary.phases.map(
      (p: any) =>
        `phase ${p.name}: the generator was late (send lag p99 40ms over its budget of 25ms): lateness only inflates latency, so results it could have caused were checked again on service time or made inconclusive`,
    );
    const checks = summary.verdict.checks.map((c: any, i: number) =>
      i === 0
        ? {
            ...c,
            status: 'inconclusive',
            reason:
              'p95 1.20s; the generator was late beyond its budget, and service time, read on the same loop, cannot tell',
          }
        : { ...c, status: 'pass' },
    );
    const judged = {
      ...summary,
      verdict: {
        status: 'inconclusive',
        reasons: [`phase ${checks[0].phase}: ${checks[0].what}: ${checks[0].reason}`],
        checks,
        notes: late,
      },
    };
    const run = JSON.parse(readFileSync(join(folder, 'run.json'), 'utf8'));
    const scenario = parseScenario(readFileSync(join(folder, 'scenario.yaml'), 'utf8'), 'scenario.yaml');
    const md = reportMarkdown(reportContent({ summary: judged, run, scenario }));
    const evidence = md.slice(md.indexOf('## Evidence'), md.indexOf('\n## ', md.indexOf('## Evidence') + 1));
    const where = `${checks[0].phase}${checks[0].band === undefined ? '' : ` (${checks[0].band} band)`}`;
    expect(
      evidence.startsWith(`## Evidence\n\n**In short:**\n\n- ${where}: ${checks[0].what}: INCONCLUSIVE, p95 1.20s\n\n`),
    ).toBe(true);
    expect(evidence).toContain(
      'The generator fell behind its own schedule in 3 phases (step-30, step-60, step-120): results its lateness could have caused',
    );
    // Each phase's note once, in the detail after the paragraphs.
    const detail = evidence.indexOf("**The generator's lateness, phase by phase:**");
    expect(detail).toBeGreaterThan(evidence.indexOf('The generator fell behind'));
    for (const note of late) {
      expect(evidence.split(note)).toHaveLength(2);
      expect(evidence.indexOf(note)).toBeGreaterThan(detail);
    }
    expect(md.split('\n')[2]).toBe(
      `**INCONCLUSIVE: could not decide ${where}: ${checks[0].what}. Against a mock: the form of the evidence, not the service’s.**`,
    );
  });

  it('--brief-client-id with a value no client_id has: exit 2 naming the flag, nothing run', async () => {
    const ws = scenarioWorkspace(STEPS);
    const bad = await runMain([
      'run',
      ws.file,
      '--time-scale',
      '60',
      '--brief-client-id',
      'two words',
      '--out',
      ws.out,
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--brief-client-id: expected the client_id, 1 to 200 printable characters');
    expect(bad.stderr).toContain('"two words"');
  });
});
