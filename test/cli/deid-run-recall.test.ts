/**
 * Recall in a deid run through the CLI: every generated document's known PHI read after its obfuscation, summed in
 * summary.json `phi`, said alike on the terminal and in report.md, and judged by `phi.rate(leaked) == 0` — never a
 * pass over PHI seen in clear in a document cut at the output cap (inconclusive against the mock, exit 5), exit 1
 * against a service whose detector misses a kind; and `phi.rate(leaked) < 0.5%` on ~1,000 items: the nominal mock's
 * documents delivered whole are under it, but its documents cut at the cap show PHI in clear (inconclusive, exit 5);
 * `leaky`'s fail on the lower bound (exit 1), quoted alike by the verdict and the recall line.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { type MockServer, startMockServer } from '../../src/mock/index.js';
import { runCli, runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';
import { type LeakyFront, startLeakyFront } from '../helpers/leaky-front.js';

// k = 5 where a document's recall is asserted: at k = 20 beside a CPU hog the 1.8 s wall deadline (16 s ÷ 20 + 1 s)
// timed pieces out, and a document not delivered whole is not judged. The profile comparison runs 5 minutes: k = 20.
const K = 5;
const K_PROFILES = 20;
let server: MockServer | undefined;
let front: LeakyFront | undefined;
afterEach(async () => {
  await front?.close();
  await server?.close();
  server = undefined;
  front = undefined;
});

const scenario = (url: string, audience = url): string =>
  `name: deid-recall\ndescription: recall under load\nmode: deid\ntarget: { environment: mock, baseUrl: "${url}", audience: "${audience}" }\npayload: { lengths: { typical: 2, long: 1 }, seed: 5 }\nphases:\n  - { name: steady, duration: 1m, rpm: 20 }\nthresholds:\n  documentedTargets: false\n  all: ['phi.rate(leaked) == 0', 'phi.count(leaked) == 0']\n`;

async function recallRun(url: string, audience = url) {
  const ws = scenarioWorkspace(scenario(url, audience));
  const { code, stdout, stderr } = await runMain([
    'run',
    '--no-charts',
    ws.file,
    '--time-scale',
    String(K),
    '--out',
    ws.out,
  ]);
  if (runFolders(ws.out).length === 0) throw new Error(stderr);
  const folder = join(ws.out, runFolders(ws.out)[0]!);
  const read = (f: string): string => readFileSync(join(folder, f), 'utf8');
  const summary = JSON.parse(read('summary.json'));
  const documents = read('documents.ndjson')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  return { code, stdout, summary, documents, report: read('report.md') };
}

/** The figures of a table row as the terminal and report.md print them (spaces or pipes between cells). */
const cellsOf = (text: string, first: string): string[] | undefined => {
  const line = text.split('\n').find((l) => new RegExp(`^\\s*\\|?\\s*${first}\\s*\\|?\\s`).test(l));
  return line
    ?.split(/\s*\|\s*|\s{2,}/)
    .map((c) => c.trim())
    .filter((c) => c !== '');
};

describe('run, mode deid: recall of known PHI', () => {
  it('counts every planted item by kind, and the terminal and report say the same as summary.json', async () => {
    server = await startMockServer({ timeScale: K });
    const { code, stdout, summary, documents, report } = await recallRun(server.url);
    const phi = summary.phi;
    // The long documents' answers are cut at the mock's output cap, and the run does not re-ask: PHI of theirs shows
    // in clear, which cannot be told from the chain's doing, so no pass (exit 5), however clean the rest.
    expect(phi.notVerified.leaked).toBeGreaterThan(0);
    expect(code).toBe(5);
    // Every document had ground truth; its line keeps counts, never a text.
    expect(phi.documents.withGroundTruth).toBe(documents.length);
    expect(documents.every((d: any) => d.phiPlanted > 0 && !('text' in d))).toBe(true);
    const delivered = documents.filter((d: any) => d.outcome === 'ok' && d.identification.truncated === 0);
    expect(phi.overall.planted).toBe(delivered.reduce((s: number, d: any) => s + d.phi.overall.planted, 0));
    expect(phi.overall.planted + phi.notVerified.items).toBe(
      documents.reduce((s: number, d: any) => s + d.phiPlanted, 0),
    );
    expect(phi.overall.leaked).toBe(0);
    const byKind = Object.values(phi.byKind) as any[];
    expect(byKind.reduce((s, c) => s + c.planted, 0)).toBe(phi.overall.planted);
    expect(phi.byKind.NAME.planted).toBeGreaterThan(0);
    expect(phi.straddling.planted).toBeLessThanOrEqual(phi.overall.planted);
    const check = summary.verdict.checks.find((c: any) => c.what === 'phi.rate(leaked) == 0');
    expect(check).toMatchObject({ status: 'inconclusive', observed: 0 });
    const nv = phi.notVerified;
    const why = `${nv.leaked} of ${nv.items} known PHI items in ${nv.documents} documents not delivered whole (not judged) showed in clear in an output, so no pass`;
    expect(check.reason.startsWith(`${why}; 0 of ${phi.overall.planted} known PHI items left in clear`)).toBe(true);
    // The same counts on the terminal and in report.md: the NAME row, the overall row, the straddling row.
    for (const text of [stdout, report]) {
      const name = phi.byKind.NAME;
      expect(cellsOf(text, 'NAME')?.slice(1, 3)).toEqual([String(name.planted), String(name.found)]);
      expect(cellsOf(text, 'straddling a cut')?.[1]).toBe(String(phi.straddling.planted));
      expect(text).toContain(`Known PHI: ${phi.overall.planted} items in ${phi.documents.deliveredWhole} documents`);
      expect(text).toContain("loadproof's mock's detector stands in for the service's model");
    }
  });

  it('fails phi.rate(leaked) == 0 with exit 1 when identification misses a kind', async () => {
    server = await startMockServer({ timeScale: K });
    front = await startLeakyFront(server.url, ['EMAIL']);
    const { code, stdout, summary } = await recallRun(front.url, server.url);
    expect(front.dropped()).toBeGreaterThan(0);
    expect(code).toBe(1);
    const email = summary.phi.byKind.EMAIL;
    expect(email.found).toBe(0);
    expect(email.inClear + email.partlyInClear).toBe(email.planted);
    expect(summary.phi.overall.leaked).toBeGreaterThanOrEqual(email.planted);
    expect(stdout).toContain("loadproof's mock's detector stands in for the service's model");
    const check = (what: string) => summary.verdict.checks.find((c: any) => c.what === what);
    expect(check('phi.rate(leaked) == 0')).toMatchObject({ status: 'fail' });
    expect(check('phi.count(leaked) == 0')).toMatchObject({ status: 'fail', observed: summary.phi.overall.leaked });
    // The kinds with leaks come first.
    const kindRows = stdout.split('\n').filter((l) => /^\s+[A-Z_]+\s+\d/.test(l));
    expect(kindRows[0]!.trim().startsWith('EMAIL')).toBe(true);
  });

  it('tells a detector good but not perfect from one that drops 1 % of its entities: phi.rate(leaked) < 0.3% passes the nominal mock, leaky fails with exit 1 on the bound it quotes', async () => {
    // deid.yaml's payload and threshold, one phase at its busier rate (seed 7: ~2,700 known items, enough that each
    // verdict is decided on its bound), on the embedded mock of each profile.
    const ws = scenarioWorkspace(
      `name: deid-threshold\ndescription: the leak-rate threshold against the mock's profiles\nmode: deid\npayload: { lengths: { short: 1, typical: 4, nearLimit: 1, long: 1 }, seed: 7, split: { margin: 0.5 } }\nphases:\n  - { name: busier, duration: 5m, rpm: 50 }\nthresholds:\n  documentedTargets: false\n  all: ['phi.rate(leaked) < 0.3%']\n`,
    );
    const run = async (profile: string) => {
      const out = join(ws.out, profile);
      const args = [
        'run',
        '--no-charts',
        ws.file,
        '--time-scale',
        String(K_PROFILES),
        '--mock-profile',
        profile,
        '--out',
        out,
      ];
      const { code, stdout, stderr } = await runCli(args);
      if (runFolders(out).length === 0) throw new Error(stderr);
      const summary = JSON.parse(readFileSync(join(out, runFolders(out)[0]!, 'summary.json'), 'utf8'));
      return {
        code,
        stdout,
        summary,
        check: summary.verdict.checks.find((c: any) => c.what === 'phi.rate(leaked) < 0.3%'),
      };
    };
    const [nominal, leaky] = await Promise.all([run('nominal'), run('leaky')]);
    // Enough items that each verdict is decided, not inconclusive: the bounds, not the rates, are what is judged.
    expect(nominal.summary.phi.overall.planted).toBeGreaterThan(2000);
    // A deid phase's rate is documents × pieces: summary.json gives it rounded, as the tables print it.
    expect(String(nominal.summary.phases[0].offeredRpm)).toMatch(/^\d+(\.\d{1,3})?$/);
    // No document cut at the output cap (split.margin 0.5): every document is judged.
    expect(nominal.summary.phi.notVerified.documents).toBe(0);
    // Some items straddle a cut of the split (a run-on line in a long document): their recall is measured, not 0 of 0.
    expect(nominal.summary.phi.straddling.planted).toBeGreaterThan(0);
    expect(nominal.check).toMatchObject({ status: 'pass' });
    expect(nominal.code).toBe(0);
    expect(leaky.summary.phi.overall.leaked).toBeGreaterThan(nominal.summary.phi.overall.leaked);
    expect(leaky.check).toMatchObject({ status: 'fail' });
    expect(leaky.summary.phi.overall.leaked / leaky.summary.phi.overall.planted).toBeGreaterThan(0.003);
    expect(leaky.code).toBe(1);
    // The fail is decided on the lower bound: the verdict says it, and the recall line gives the same figure.
    const lower = /at least (\d+\.\d+ %) at 95 %, not < 0\.3 %/.exec(leaky.check.reason)?.[1];
    expect(lower).toBeDefined();
    expect(leaky.stdout).toContain(`between ${lower} and`);
  });

  it('refuses a phi threshold on texts without ground truth, naming it, before anything is sent', async () => {
    const ws = scenarioWorkspace('');
    mkdirSync(join(ws.dir, 'texts'));
    writeFileSync(join(ws.dir, 'texts', 'a.txt'), 'Seen by Ann Lee on 01/02/2020.');
    writeFileSync(
      ws.file,
      `name: s\ndescription: d\nmode: deid\npayload: { source: texts }\nphases:\n  - { name: steady, duration: 1m, rpm: 20 }\nthresholds: { all: ['phi.count(leaked) == 0'] }\n`,
    );
    const { code, stderr } = await runMain(['run', ws.file, '--time-scale', String(K), '--out', ws.out]);
    expect(code).toBe(2);
    expect(stderr).toContain(
      `thresholds.all[0]: "phi.count(leaked) == 0" needs texts whose PHI is known, but none of payload.source's 1 texts is annotated`,
    );
    expect(existsSync(ws.out)).toBe(false);
  });
});
