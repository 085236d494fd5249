/**
 * A run folder's evidence. Every run writes junit.xml (one case per check) and, last,
 * manifest.json (the host, the command line, the scenario's hash and seeds, a SHA-256 of every other
 * file); `run` prints the manifest's own hash. `loadproof verify` hashes the folder again: exit 0 when
 * intact, 1 once any byte of a listed file changed, a listed file is gone or an unlisted one appeared,
 * 2 without a manifest. `loadproof report` writes both again, junit.xml byte for byte the same.
 */
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type MockServer, startMockServer } from '../../src/mock/index.js';
import { runCli, runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';

const K = 20;
const CHARTS = ['in-flight', 'latency-distribution', 'latency-over-time', 'rate-and-refusals', 'send-lag'];
let server: MockServer;
let dir: string;
let runOutput: { code: number; stdout: string; stderr: string };

const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');
const readJson = (path: string): any => JSON.parse(readFileSync(path, 'utf8'));
/** A copy of the run folder, for a test that changes it. */
const copyOfRun = (): string => {
  const copy = join(mkdtempSync(join(tmpdir(), 'loadproof-evidence-')), 'run');
  cpSync(dir, copy, { recursive: true });
  return copy;
};

beforeAll(async () => {
  server = await startMockServer({ timeScale: K });
  const { file, out } = scenarioWorkspace(
    `name: evidence\ndescription: a run whose folder is evidence\ntarget: { environment: mock, baseUrl: "${server.url}" }\narrivals: { process: poisson, seed: 7 }\nphases:\n  - { name: steady, duration: 60s, rpm: 100, warmup: 10s }\n  - { name: burst, duration: 30s, rpm: 200 }\n  - { name: ramp, duration: 40s, fromRpm: 100, toRpm: 300 }\nthresholds:\n  all: ["p(50) < 1ms"]\n`,
  );
  runOutput = await runMain(['run', file, '--time-scale', String(K), '--out', out]);
  dir = join(out, runFolders(out)[0]!);
});
afterAll(async () => {
  await server.close();
});

describe('a run folder as evidence', () => {
  it('holds junit.xml with one test case per check of the verdict, failures and inconclusive ones marked', () => {
    // p(50) < 1 ms cannot hold: a fail, or inconclusive when a busy machine made the generator late.
    expect([1, 5]).toContain(runOutput.code);
    const xml = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const summary = readJson(join(dir, 'summary.json'));
    const root = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '',
      isArray: (name) => ['testsuite', 'testcase'].includes(name),
    }).parse(xml).testsuites;
    const cases = root.testsuite.flatMap((s: any) => s.testcase ?? []);
    expect(cases).toHaveLength(summary.verdict.checks.length);
    expect(Number(root.tests)).toBe(summary.verdict.checks.length);
    expect(Number(root.failures)).toBe(summary.verdict.checks.filter((c: any) => c.status === 'fail').length);
    expect(Number(root.skipped)).toBe(summary.verdict.checks.filter((c: any) => c.status === 'inconclusive').length);
    expect(root.testsuite.map((s: any) => s.name).slice(0, 2)).toEqual(['evidence / steady', 'evidence / burst']);
    const threshold = cases.find(
      (c: any) => c.name.startsWith('threshold') && c.classname === 'loadproof.evidence.steady',
    );
    expect(threshold.failure ?? threshold.skipped).toBeDefined();
  });

  it('holds manifest.json: the run, the host and command line, the scenario with its hash and seeds, and the SHA-256 of every other file', () => {
    const manifest = readJson(join(dir, 'manifest.json'));
    const run = readJson(join(dir, 'run.json'));
    const summary = readJson(join(dir, 'summary.json'));
    expect(manifest).toMatchObject({
      schemaVersion: 1,
      loadproofVersion: summary.loadproofVersion,
      planIdentity: summary.planIdentity,
      scenario: {
        name: 'evidence',
        file: 'scenario.yaml',
        sha256: run.scenarioSha256,
        seeds: { arrivals: 7, payload: 1 },
      },
      timeScale: K,
      startedAt: summary.startedAt,
      endedAt: summary.endedAt,
      partial: false,
      verdict: summary.verdict.status,
      host: {
        node: process.version,
        commandLine: [
          'loadproof',
          'run',
          expect.stringMatching(/scenario\.yaml$/),
          '--time-scale',
          String(K),
          '--out',
          expect.any(String),
        ],
      },
    });
    // brief.md is written after the manifest, naming its hash: it is not listed (verify checks the hash it names).
    expect(readdirSync(dir)).toContain('brief.md');
    const files = [
      ...readdirSync(dir).filter((f) => f !== 'manifest.json' && f !== 'brief.md' && f !== 'charts'),
      ...readdirSync(join(dir, 'charts')).map((f) => `charts/${f}`),
    ].sort();
    expect(manifest.files.map((f: any) => f.file)).toEqual(files);
    expect(files).toEqual(
      [
        ...CHARTS.map((c) => `charts/${c}.png`),
        'events.ndjson',
        'junit.xml',
        'report.html',
        'report.md',
        'run.json',
        'scenario.yaml',
        'summary.json',
      ].sort(),
    );
    for (const entry of manifest.files)
      expect(entry).toEqual({
        file: entry.file,
        bytes: readFileSync(join(dir, entry.file)).length,
        sha256: sha256(join(dir, entry.file)),
      });
    // The hash a ticket quotes is the one printed.
    expect(runOutput.stdout).toContain(
      `evidence: ${join(dir, 'manifest.json')} sha256:${sha256(join(dir, 'manifest.json'))}`,
    );
  });

  it("holds report.md: the run's identity, a row per phase and band slice with its p95 interval and verdict, the evidence, the charts", () => {
    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    const summary = readJson(join(dir, 'summary.json'));
    const run = readJson(join(dir, 'run.json'));
    expect(md.startsWith(`# evidence: ${summary.verdict.status.toUpperCase()}\n`)).toBe(true);
    expect(md).toContain(`| Scenario file | scenario.yaml (copy of ${run.scenarioSource}), ${run.scenarioSha256} |`);
    expect(md).toContain(`| Plan | ${summary.counts.planned} requests, ${summary.planIdentity} |`);
    expect(md).toContain(`| Run window | ${summary.startedAt.slice(0, 10)} ${summary.startedAt.slice(11, 19)} UTC – `);
    expect(md).toContain(`| loadproof | ${summary.loadproofVersion} (judged by ${summary.judgedBy}) |`);
    expect(md).toContain('| Advance notice | none given |');
    const fmt = (ms: number): string => (ms >= 1000 ? `${(ms / 1000).toFixed(2)}s` : `${Math.round(ms)}ms`);
    for (const phase of summary.phases) {
      const line = md.split('\n').find((l) => l.startsWith(`| ${phase.name} |`));
      expect(line, phase.name).toBeDefined();
      expect(line).toContain(
        `| ${phase.offeredRpm} | ${phase.achievedRpm.toFixed(1)} | ${phase.goodputRpm.toFixed(1)} | ${phase.sent} | ${phase.outcomes.ok} | ${phase.outcomes.http_429} | ${phase.outcomes.http_504} |`,
      );
      expect(line!.endsWith(`| ${phase.verdict.toUpperCase()} |`)).toBe(true);
    }
    // The ramp is judged by band slice: a row for each, with the interval its check judged.
    const ramp = summary.phases.find((p: any) => p.name === 'ramp');
    expect(ramp.bands.length).toBeGreaterThan(1);
    for (const band of ramp.bands) {
      const check = summary.verdict.checks.find((c: any) => c.phase === 'ramp' && c.band === band.band);
      const line = md
        .split('\n')
        .find((l) => l.startsWith(`| ↳ ${band.fromRpm}→${band.toRpm} rpm (${band.band} band) |`));
      expect(line, band.band).toBeDefined();
      const [low, high] = check.interval;
      const interval = high === null ? `≥ ${fmt(low)}` : `${fmt(low)}–${fmt(high)}`;
      expect(line).toContain(`| ${fmt(check.observed)} (${interval}) |`);
      expect(line).toContain(`| < ${fmt(band.p95Ms)} | ${check.status.toUpperCase()} |`);
    }
    expect(md).toContain('## Evidence');
    expect(md).toContain('not the service: it shows how the scenario and loadproof behave');
    expect(md).toContain('No answer was a 429.');
    for (const reason of summary.verdict.reasons) expect(md).toContain(`- ${reason}`);
    const charts = [...md.matchAll(/!\[[^\]]+\]\((charts\/[^)]+\.png)\)/g)].map((m) => m[1]!);
    expect(charts.sort()).toEqual(CHARTS.map((c) => `charts/${c}.png`));
    for (const chart of charts) expect(readFileSync(join(dir, chart)).length).toBeGreaterThan(1000);
  });

  it('verify: intact as written (exit 0); then not, once one byte of summary.json changes (exit 1)', async () => {
    const intact = await runCli(['verify', dir]);
    expect(intact.code).toBe(0);
    expect(intact.stdout).toContain('intact: all 12 files are byte for byte the ones manifest.json lists');
    expect(intact.stdout).toContain(`manifest.json sha256:${sha256(join(dir, 'manifest.json'))}`);

    const copy = copyOfRun();
    const summary = readFileSync(join(copy, 'summary.json'));
    const at = summary.indexOf('"sent": ') + 8;
    summary[at] = summary[at] === 0x39 ? 0x38 : summary[at]! + 1; // one digit of a count
    writeFileSync(join(copy, 'summary.json'), summary);
    const changed = await runMain(['verify', copy]);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain('NOT INTACT');
    expect(changed.stdout).toContain('  changed: summary.json\n');
    expect(changed.stdout).toContain('  11 files match');
  });

  it('verify: a listed file gone, or a file the manifest does not list, is not intact either', async () => {
    const copy = copyOfRun();
    rmSync(join(copy, 'junit.xml'));
    appendFileSync(join(copy, 'notes.txt'), 'added after the run\n');
    const { code, stdout } = await runMain(['verify', copy]);
    expect(code).toBe(1);
    expect(stdout).toContain('  missing: junit.xml\n');
    expect(stdout).toContain('  not in the manifest: notes.txt\n');
  });

  it('verify: a folder without a manifest, or with something else in its place, is bad input (exit 2)', async () => {
    const copy = copyOfRun();
    rmSync(join(copy, 'manifest.json'));
    const missing = await runMain(['verify', copy]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`${copy}/manifest.json: missing`);
    writeFileSync(join(copy, 'manifest.json'), '{"schemaVersion": 9}');
    const other = await runMain(['verify', copy]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('schemaVersion 9 with no file list, expected schemaVersion 1 and files[]');
  });

  it('report writes junit.xml and report.md again byte for byte, and a new manifest that verify finds intact', async () => {
    const copy = copyOfRun();
    const junit = readFileSync(join(copy, 'junit.xml'), 'utf8');
    const md = readFileSync(join(copy, 'report.md'), 'utf8');
    const mdInode = statSync(join(copy, 'report.md')).ino;
    const again = await runMain(['report', copy]);
    expect(again.code).toBe(runOutput.code);
    expect(readFileSync(join(copy, 'junit.xml'), 'utf8')).toBe(junit);
    expect(readFileSync(join(copy, 'report.md'), 'utf8')).toBe(md);
    expect(statSync(join(copy, 'report.md')).ino).not.toBe(mdInode); // written again (atomically: a new file), not left alone
    expect(again.stdout).toContain(
      `evidence: ${join(copy, 'manifest.json')} sha256:${sha256(join(copy, 'manifest.json'))}`,
    );
    expect((await runMain(['verify', copy])).code).toBe(0);
    expect(readJson(join(copy, 'manifest.json')).previous).toEqual({
      sha256: sha256(join(dir, 'manifest.json')),
      intact: true,
      changed: [],
      missing: [],
      unlisted: [],
    });
  });

  it('report over a folder that no longer matches its manifest says so, and the new manifest records it', async () => {
    const copy = copyOfRun();
    const before = sha256(join(copy, 'manifest.json'));
    appendFileSync(join(copy, 'notes.txt'), 'added after the run\n');
    const again = await runMain(['report', copy]);
    expect(again.code).toBe(runOutput.code);
    expect(again.stderr).toContain(
      'note: the folder did not match its manifest.json before this report (not in it: notes.txt): the new manifest.json records that',
    );
    expect(readJson(join(copy, 'manifest.json')).previous).toEqual({
      sha256: before,
      intact: false,
      changed: [],
      missing: [],
      unlisted: ['notes.txt'],
    });
  });

  it('sorts 429 answers in the timeline by the limit their bodies name: the in-flight limit of a mock that takes 2 at a time', async () => {
    const tiny = await startMockServer({ timeScale: K, limits: { maxInFlight: 2, queueLimit: 0 } });
    try {
      const { file, out } = scenarioWorkspace(
        `name: in-flight\ndescription: more in flight than the mock takes\ntarget: { environment: mock, baseUrl: "${tiny.url}" }\non429: { policy: retry, maxAttempts: 2, baseDelay: 1s }\nthresholds: { documentedTargets: false }\nphases:\n  - { name: steady, duration: 60s, rpm: 100 }\n`,
      );
      await runMain(['run', file, '--time-scale', String(K), '--out', out]);
      const folder = join(out, runFolders(out)[0]!);
      const summary = readJson(join(folder, 'summary.json'));
      const byKind = summary.timeline.reduce(
        (sum: any, w: any) => ({
          rateLimit: sum.rateLimit + w.answers429.rateLimit,
          inFlight: sum.inFlight + w.answers429.inFlight,
          other: sum.other + w.answers429.other,
        }),
        { rateLimit: 0, inFlight: 0, other: 0 },
      );
      const stats = tiny.stats() as any;
      // Every 429 the mock sent for concurrency is counted as such, and nothing else is.
      expect(byKind.inFlight).toBeGreaterThan(0);
      expect(byKind).toEqual({
        rateLimit: stats.identification.gateway.rateLimited,
        inFlight: stats.identification.gateway.concurrencyLimited,
        other: 0,
      });
      const lines = readFileSync(join(folder, 'events.ndjson'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      // report.md says when the first 429 answer came (a retried one included), at what offered rate, of which kind,
      // and how many in all.
      const first = summary.timeline.find(
        (w: any) => w.answers429.rateLimit + w.answers429.inFlight + w.answers429.other > 0,
      );
      const md = readFileSync(join(folder, 'report.md'), 'utf8');
      expect(md).toMatch(
        new RegExp(
          `The first 429 came at ${summary.first429.atS.toFixed(1).replace('.', '\\.')} s \\(model time\\) into the run \\(phase steady\\), when the offered rate was ${first.offeredRpm} requests a minute: ${first.answers429.inFlight} for requests in flight in the 10s window it came in\\.`,
        ),
      );
      const answers = byKind.rateLimit + byKind.inFlight + byKind.other;
      expect(md).toContain(
        `In all ${answers} answers were 429 (${byKind.inFlight} for requests in flight); ${summary.overall.outcomes.http_429} request`,
      );
      // Some were retried: the report counts their 429s all the same.
      expect(summary.overall.outcomes.http_429).toBeLessThan(answers);
      expect(
        lines
          .flatMap((e) => e.tries)
          .filter((t) => t.status === 429)
          .every((t) => t.errorCode === 'too_many_in_flight' || t.errorCode === 'rate_limited'),
      ).toBe(true);
    } finally {
      await tiny.close();
    }
  });

  it('holds the charts as PNG images of 1000 × 460 pixels with something drawn on them', async () => {
    const { loadImage, createCanvas } = await import('canvas');
    for (const name of CHARTS) {
      const png = readFileSync(join(dir, 'charts', `${name}.png`));
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      const image = await loadImage(png);
      expect([image.width, image.height]).toEqual([1000, 460]);
      const canvas = createCanvas(image.width, image.height);
      const context = canvas.getContext('2d');
      context.drawImage(image, 0, 0);
      const pixels = context.getImageData(0, 0, image.width, image.height).data;
      let coloured = 0;
      // Pixels of a series' colour, not the white ground or the grey of axes and grid.
      for (let i = 0; i < pixels.length; i += 4)
        if (
          Math.max(pixels[i]!, pixels[i + 1]!, pixels[i + 2]!) - Math.min(pixels[i]!, pixels[i + 1]!, pixels[i + 2]!) >
          60
        )
          coloured++;
      expect(coloured, `${name}.png has coloured series`).toBeGreaterThan(500);
    }
  });

  it('points <out>/latest at the newest run folder, and leaves a `latest` that is not its link alone', async () => {
    const { file, out } = scenarioWorkspace(
      `name: latest\ndescription: two runs one after the other\ntarget: { environment: mock, baseUrl: "${server.url}" }\nthresholds: { documentedTargets: false }\nphases:\n  - { name: steady, duration: 10s, rpm: 60 }\n`,
    );
    expect((await runMain(['run', file, '--time-scale', String(K), '--out', out])).code).toBe(0);
    expect(readlinkSync(join(out, 'latest'))).toBe(runFolders(out)[0]);
    expect((await runMain(['run', file, '--time-scale', String(K), '--out', out])).code).toBe(0);
    const [first, second] = runFolders(out);
    expect(second).toBeDefined();
    expect(readlinkSync(join(out, 'latest'))).toBe(second);
    expect(readdirSync(join(out, 'latest'))).toContain('manifest.json');
    expect(first).not.toBe(second);
    // Someone's own folder named latest is not replaced: a warning, and the run passes.
    const { out: other } = scenarioWorkspace('');
    mkdirSync(join(other, 'latest'), { recursive: true });
    const run = await runMain(['run', file, '--time-scale', String(K), '--out', other]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `loadproof: warning: ${join(other, 'latest')} exists and is not a link; left as it is`,
    );
    expect(readdirSync(join(other, 'latest'))).toEqual([]);
  });

  it('--json prints summary.json itself on stdout; --inconclusive maps an inconclusive verdict for CI, run and report alike', async () => {
    // Ten requests: too few for a p95 interval, so the documented target's check is inconclusive.
    const { file, out } = scenarioWorkspace(
      `name: few\ndescription: too few requests to judge\ntarget: { environment: mock, baseUrl: "${server.url}" }\nphases:\n  - { name: steady, duration: 10s, rpm: 60 }\n`,
    );
    const run = await runMain([
      'run',
      file,
      '--time-scale',
      String(K),
      '--out',
      out,
      '--json',
      '--inconclusive',
      'fail',
    ]);
    const folder = join(out, runFolders(out)[0]!);
    expect(run.stdout).toBe(readFileSync(join(folder, 'summary.json'), 'utf8'));
    const summary = JSON.parse(run.stdout);
    expect(summary.verdict.status).toBe('inconclusive');
    // The process exit is mapped; summary.json keeps the verdict's own exit.
    expect([run.code, summary.exitCode]).toEqual([1, 5]);
    expect(run.stderr).toContain(`evidence: ${join(folder, 'manifest.json')} sha256:`);
    expect((await runMain(['report', folder, '--inconclusive', 'pass'])).code).toBe(0);
    const plain = await runMain(['report', folder]);
    expect(plain.code).toBe(5);
    expect(plain.stdout).toContain('exit 5');
    const refused = await runMain(['report', folder, '--inconclusive', 'maybe']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/inconclusive.*maybe/s);
  });
});
