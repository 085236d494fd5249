/**
 * What the fault tests (test/cli/faults*.test.ts) check of every run they make: one events line per
 * planned request, counts that add up, the attempts the server saw, and the same summary when the
 * folder is judged again.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { expect } from 'vitest';

import { runFolders } from './cli.js';
import { expectSameWhenJudgedAgain } from './rejudge.js';

export const scenarioAt = (url: string, phases: string, extra = ''): string =>
  `name: faults\ndescription: a run that meets a fault\ntarget: { environment: mock, baseUrl: "${url}" }\nphases:\n${phases}thresholds: { documentedTargets: false }\n${extra}`;

export interface Report {
  readonly dir: string;
  readonly summary: any;
  readonly events: any[];
}

export async function readRun(dir: string): Promise<Report> {
  // Every run these tests make is also judged again from its folder, and must come out the same.
  if (existsSync(join(dir, 'run.json'))) await expectSameWhenJudgedAgain(dir);
  const events = existsSync(join(dir, 'events.ndjson'))
    ? readFileSync(join(dir, 'events.ndjson'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
  return { dir, summary: JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')), events };
}

export const onlyRun = async (out: string): Promise<Report> => {
  const folders = runFolders(out);
  expect(folders).toHaveLength(1);
  return readRun(join(out, folders[0]!));
};

/** One line per planned request, counts that add up, and (when known) the attempts the server saw. */
export function expectReconciled(r: Report, serverAttempts?: number): void {
  const c = r.summary.counts;
  expect(c.planned).toBe(c.sent + c.dropped + c.unsent);
  expect(r.events.map((e) => e.seq).sort((a: number, b: number) => a - b)).toEqual([...Array(c.planned).keys()]);
  const byOutcome: Record<string, number> = {};
  for (const e of r.events) byOutcome[e.outcome] = (byOutcome[e.outcome] ?? 0) + 1;
  for (const [outcome, n] of Object.entries(r.summary.overall.outcomes)) expect(byOutcome[outcome] ?? 0).toBe(n);
  const attempts = r.events.reduce((sum, e) => sum + e.attempts, 0);
  expect(attempts).toBe(r.summary.overall.attempts);
  if (serverAttempts !== undefined) expect(attempts).toBe(serverAttempts);
}

/** Polls `condition` every 10 ms; bounded (a child's start-up alone can take 7 s on a busy machine). */
export const until = async (condition: () => boolean, what: string, limitMs = 30_000): Promise<void> => {
  const end = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};
