/** One `loadproof run` through a gateway: the built CLI as a child process, its run folder read back. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { runCli, runFolders, scenarioWorkspace } from '../../helpers/cli.js';
import type { GatewayLog } from './access-log.js';
import { identificationLines } from './reconcile.js';

export interface GatewayRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** summary.json; undefined when the run made no folder. */
  readonly summary: any;
  /** events.ndjson: one line per planned request. */
  readonly events: any[];
}

export interface RunThrough {
  /** The gateway's base URL: the scenario's target, `environment: mock` (a loopback server). */
  readonly baseUrl: string;
  /** The upstream mock's audience (its own URL: the token endpoint compares it). */
  readonly audience: string;
  readonly timeScale: number;
  /** The scenario's `phases:` items, one YAML flow mapping a line. */
  readonly phases: readonly string[];
  /** More top-level scenario lines (on429, thresholds…). */
  readonly extra?: string;
  /** The child's environment beyond the test's (NODE_EXTRA_CA_CERTS for a private CA). */
  readonly env?: Record<string, string>;
  /** More arguments of `loadproof run` (--start-at…). */
  readonly args?: readonly string[];
}

export async function runThrough(options: RunThrough): Promise<GatewayRun> {
  const { file, out } = scenarioWorkspace(
    [
      'name: gateway',
      'description: a run through a real gateway in front of the mock',
      `target: { environment: mock, baseUrl: "${options.baseUrl}", audience: "${options.audience}" }`,
      'phases:',
      ...options.phases.map((p) => `  - ${p}`),
      options.extra ?? '',
    ].join('\n'),
  );
  const args = [
    'run',
    file,
    '--time-scale',
    String(options.timeScale),
    '--out',
    out,
    '--no-charts',
    ...(options.args ?? []),
  ];
  const { code, stdout, stderr } = await runCli(args, options.env ?? {});
  const folders = existsSync(out) ? runFolders(out) : [];
  // A run refused or failed before its first arrival (exit 2, 3, 4) leaves no folder.
  if (folders.length === 0) return { code, stdout, stderr, summary: undefined, events: [] };
  const dir = join(out, folders[0]!);
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  const events = readFileSync(join(dir, 'events.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  return { code, stdout, stderr, summary, events };
}

/** A run through a gateway, and the gateway's log lines of it (all, and those of identification requests). */
export async function runLogged(log: GatewayLog, markerUrl: string, options: RunThrough) {
  const mark = log.mark();
  const run = await runThrough(options);
  const lines = await log.linesSince(mark, markerUrl);
  return { run, lines, mine: identificationLines(lines) };
}
