/** What `run` and `report` share: the --json and --inconclusive flags, and how a judgement is printed. */
import { dirname } from 'node:path';

import type { Argv } from 'yargs';

import { exitUnder, INCONCLUSIVE_POLICIES, type InconclusivePolicy } from '../../core/index.js';
import { type Summary, summaryJson } from '../../judge/index.js';
import { formatManifestLine, formatSummary } from '../../run/index.js';
import type { FolderJudgement } from '../../run-folder/index.js';
import type { Io } from '../io.js';

/** `run --idle-before` and `report --idle-before`: what the envelope may assume of the client's bucket at the start. */
export const IDLE_BEFORE_OPTION = {
  type: 'string',
  requiresArg: true,
  describe:
    'How long the client sent nothing to the service before the run (e.g. 10m; model time at --time-scale k): the rate-limit envelope then judges from the bucket that refilled meanwhile, not from an empty one. Recorded in run.json',
} as const;

/** `run --capacity-429-share` and `report --capacity-429-share`: when a step of a stepping run holds. */
export const CAPACITY_429_SHARE_OPTION = {
  type: 'string',
  requiresArg: true,
  describe:
    "A run that steps the rate up: the largest share (0 to 1) of a step's requests that may end with a 429 for the step to count as served in the capacity headline (default 0: none). Recorded in run.json by run; report uses it for this judgement",
} as const;

/** `--capacity-429-share` checked (exit 2 naming it); the judge is loaded only when the flag is given. */
export async function capacity429Share(text: string | undefined): Promise<number | undefined> {
  if (text === undefined) return undefined;
  const { parseCapacity429Share } = await import('../../judge/index.js');
  return parseCapacity429Share('--capacity-429-share', text);
}

export const BRIEF_CLIENT_ID_OPTION = {
  type: 'string',
  requiresArg: true,
  describe:
    "The client_id (not secret) for brief.md and the report's brief to name, so support can find the requests; named nowhere unless given",
} as const;

export function judgementOptions<T>(y: Argv<T>) {
  return y
    .option('json', {
      type: 'boolean',
      default: false,
      describe: 'Print summary.json on stdout instead of the table (the evidence line goes to stderr)',
    })
    .option('inconclusive', {
      choices: INCONCLUSIVE_POLICIES,
      default: 'exit5' as InconclusivePolicy,
      describe:
        'How the exit code takes an inconclusive verdict: exit5 (5), fail (1) or pass (0); summary.json keeps the verdict and its exit 5',
    })
    .option('charts', {
      type: 'boolean',
      default: true,
      describe:
        'Draw the PNG charts (charts/*.png). --no-charts skips them, about 0.3 s of CPU per run, for CI; report.html still draws its charts, and `loadproof report <dir>` draws the PNGs later',
    });
}

/**
 * The table (or summary.json itself, with --json) on stdout, and the evidence line; `summaryPath` null: summary.json
 * was not written.
 */
export function printJudgement(
  io: Io,
  json: boolean,
  summary: Summary,
  runDir: string,
  summaryPath: string | null,
  manifestSha256: string | null,
  exitCode: number,
  verbose = false,
): void {
  const evidence = formatManifestLine(runDir, manifestSha256);
  if (json) {
    for (const piece of summaryJson(summary)) io.stdout(piece);
    io.stderr(evidence);
  } else {
    io.stdout(formatSummary(summary, summaryPath, exitCode, verbose));
    io.stdout(evidence);
  }
}

/**
 * `report` and `merge` write a folder: the first SIGINT or SIGTERM stops them where a folder is still
 * whole (see judgeFolder, mergeAndJudge) and makes the exit 130; later ones are taken too, so a folder is
 * never cut mid-write by a second one.
 */
export function stopOnSignal(io: Io, what: string): AbortSignal {
  const controller = new AbortController();
  void io.waitForSignal().then((signal) => {
    io.stderr(`loadproof: ${signal}: ${what}\n`);
    controller.abort();
    const swallow = (): void => void io.waitForSignal().then(swallow);
    swallow();
  });
  return controller.signal;
}

/** How long a test hold waits for its signal at most. */
const TEST_HOLD_MS = 30_000;

/**
 * LOADPROOF_TEST_HOLD=<stage>: at that stage, says so on stderr and waits for the stop signal, 30 s at
 * most (a seam for loadproof's own tests, so that a signal lands at a known point); unset, nothing waits.
 */
export function holdForTests(io: Io, stage: string, signal: AbortSignal): (() => Promise<void>) | undefined {
  if (io.env.LOADPROOF_TEST_HOLD !== stage) return undefined;
  return () =>
    new Promise<void>((resolve) => {
      io.stderr(`loadproof: test hold: ${stage}\n`);
      // The timer also keeps the process alive while it waits.
      const timer = setTimeout(resolve, TEST_HOLD_MS);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      if (signal.aborted) done();
      else signal.addEventListener('abort', done, { once: true });
    });
}

/**
 * What `report` and `merge` print of a folder judged again: its notes, the table (or summary.json with --json) and
 * the evidence line, then every file that could not be written. Returns the exit code under --inconclusive.
 */
export function printFolderJudgement(
  io: Io,
  args: { readonly json: boolean; readonly inconclusive: InconclusivePolicy },
  judged: FolderJudgement,
): number {
  for (const note of judged.notes) io.stderr(`loadproof: note: ${note}\n`);
  const exitCode = exitUnder(args.inconclusive, judged.exitCode);
  printJudgement(
    io,
    args.json,
    judged.summary,
    dirname(judged.summaryPath),
    judged.written.error === null ? judged.summaryPath : null,
    judged.manifestSha256,
    exitCode,
  );
  if (judged.written.error !== null)
    io.stderr(
      `loadproof: RUN_FAILED: could not write ${judged.summaryPath} (${judged.written.error}); the table above is the judgement\n`,
    );
  for (const f of judged.reports.filter((r) => r.error !== null))
    io.stderr(`loadproof: RUN_FAILED: could not write ${f.file} (${f.error})\n`);
  return exitCode;
}
