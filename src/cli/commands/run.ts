/** `loadproof run <scenario>`: the main job. Wires the run module to the process; no logic here. */
import type { Argv } from 'yargs';

import { EXIT, exitUnder, TimeScale, UsageError } from '../../core/index.js';
import { parseStartAt } from '../../guard/index.js';
import { parseShard } from '../../plan/index.js';
import { parseBriefClientId } from '../../report/index.js';
import { checkMetricsHost, describeEnding, executeRun, hostRecord } from '../../run/index.js';
import { parseDurationFlag } from '../../scenario/index.js';
import { PROFILE_NAMES } from '../../spec/index.js';
import type { Io } from '../io.js';
import {
  BRIEF_CLIENT_ID_OPTION,
  CAPACITY_429_SHARE_OPTION,
  capacity429Share,
  IDLE_BEFORE_OPTION,
  judgementOptions,
  printJudgement,
} from './judgement-output.js';
import { CA_OPTION, CREDENTIALS_OPTION, LOOPBACK_AS_REAL_OPTION } from './target-options.js';

export function runOptions<T>(y: Argv<T>) {
  return judgementOptions(y)
    .positional('scenario', { type: 'string', demandOption: true, describe: 'Scenario file (YAML or JSON)' })
    .option('time-scale', {
      type: 'number',
      default: 1,
      describe:
        'k, from 1 to 1000: against the mock, run k times fast (rates × k, durations ÷ k); times are reported in model time',
    })
    .option('mock-profile', { choices: PROFILE_NAMES, describe: "Embedded mock: override the scenario's profile" })
    .option('out', {
      type: 'string',
      default: 'reports',
      describe: 'Folder in which a new folder is made for this run',
    })
    .option('run-dir', {
      type: 'string',
      describe:
        "The exact folder for this run's files (made if missing; refused if it holds a finished run), instead of a new one under --out",
    })
    .option('ca', CA_OPTION)
    .option('credentials', CREDENTIALS_OPTION)
    .option('verbose', {
      type: 'boolean',
      default: false,
      describe:
        "Log each token call and each request to stderr (never a header or token; a failed request's line may hold the start of what it was told, secrets masked)",
    })
    .option('quiet', {
      type: 'boolean',
      default: false,
      describe: 'No live progress on stderr (by default: one updating line on a terminal, a line every 10 s elsewhere)',
    })
    .option('baseline', {
      type: 'string',
      describe:
        'A run folder to compare this run with (as loadproof compare does): in the reports, and exit 1 on a clear regression',
    })
    .option('tolerance', {
      type: 'string',
      describe:
        "With --baseline: how far above the baseline's p95 interval this run's must lie to be a regression (default 10%)",
    })
    .option('shard', {
      type: 'string',
      describe:
        'i/n: send only shard i of n of the plan (0-based, as JOB_COMPLETION_INDEX): the arrivals whose seq ≡ i (mod n), in mode deid the whole documents d ≡ i (mod n); the guard judges the whole plan; loadproof merge joins the shards',
    })
    .option('start-at', {
      type: 'string',
      describe:
        "An ISO time with a zone: the schedule's t = 0 (every shard given the same starts together); at most 1 s late, 24 h ahead",
    })
    .option('metrics-port', {
      type: 'number',
      requiresArg: true,
      describe:
        'Serve live metrics (GET /metrics, OpenMetrics or Prometheus text) on this port while the run lasts; 0 picks a free one',
    })
    .option('metrics-host', {
      type: 'string',
      requiresArg: true,
      default: '127.0.0.1',
      describe:
        'The address --metrics-port listens on: 127.0.0.1 by default (this host only); 0.0.0.0 or :: for a scraper in a cluster (said on stderr: /metrics has no authentication); an empty or ambiguous host is refused',
    })
    .option('idle-before', IDLE_BEFORE_OPTION)
    .option('capacity-429-share', CAPACITY_429_SHARE_OPTION)
    .option('brief-client-id', BRIEF_CLIENT_ID_OPTION)
    .option('allow-loopback-as-real', LOOPBACK_AS_REAL_OPTION);
}

/** The exits of a verdict (pass, fail, inconclusive), which a shard leaves to the merge. */
const SHARD_VERDICT_EXITS = new Set<number>([EXIT.pass, EXIT.slaNotMet, EXIT.inconclusive]);

type RunArgs = Awaited<ReturnType<typeof runOptions>['argv']>;

export async function runRun(args: RunArgs, io: Io): Promise<number> {
  const timeScale = TimeScale.of(args['time-scale']);
  const shard = args.shard === undefined ? undefined : parseShard(args.shard);
  const startAt = args['start-at'] === undefined ? undefined : parseStartAt(args['start-at'], '--start-at');
  if (startAt !== undefined && 'problem' in startAt) throw new UsageError(startAt.problem, 'nothing was sent');
  const metricsPort = args['metrics-port'];
  if (metricsPort !== undefined && !(Number.isInteger(metricsPort) && metricsPort >= 0 && metricsPort <= 65_535))
    throw new UsageError(`--metrics-port: expected a port from 0 to 65535, got ${metricsPort}`, 'nothing was sent');
  const metricsHost = checkMetricsHost(args['metrics-host']);
  const idleBefore =
    args['idle-before'] === undefined ? undefined : parseDurationFlag('--idle-before', args['idle-before']);
  const share = await capacity429Share(args['capacity-429-share']);
  const briefClientId = args['brief-client-id'] === undefined ? undefined : parseBriefClientId(args['brief-client-id']);
  // The baseline is judged before anything is sent: a bad one is bad input (exit 2), with no traffic.
  if (args.tolerance !== undefined && args.baseline === undefined)
    throw new UsageError(
      '--tolerance: it applies only with --baseline <dir>',
      'add --baseline, or drop --tolerance; nothing was sent',
    );
  const baseline = args.baseline === undefined ? undefined : await loadBaseline(args.baseline, args.tolerance ?? '10%');
  const controller = new AbortController();
  void io.waitForSignal().then((signal) => {
    // On a terminal the progress line is erased first, so the message starts on a clean line.
    io.stderr(
      `${io.stderrIsTTY ? '\r\x1b[2K' : ''}loadproof: ${signal}: no new requests; waiting for the answers in flight, then writing the partial report (Ctrl-C again to quit at once)\n`,
    );
    controller.abort();
  });
  const outcome = await executeRun({
    scenarioFile: args.scenario,
    timeScale,
    mockProfile: args['mock-profile'],
    outDir: args.out,
    runDir: args['run-dir'],
    env: io.env,
    credentialsFile: args.credentials,
    caFile: args.ca,
    loopbackAsReal: args['allow-loopback-as-real'],
    verbose: args.verbose,
    secrets: io.secrets,
    host: hostRecord(['loadproof', ...io.argv], io.cwd),
    pngCharts: args.charts,
    ...(shard === undefined ? {} : { shard }),
    ...(startAt === undefined ? {} : { startAtMs: startAt.ms }),
    ...(idleBefore === undefined ? {} : { idleBeforeMs: idleBefore }),
    ...(share === undefined ? {} : { capacity429Share: share }),
    ...(briefClientId === undefined ? {} : { briefClientId }),
    ...(metricsPort === undefined ? {} : { metrics: { host: metricsHost, port: metricsPort } }),
    ...(baseline === undefined ? {} : { baseline }),
    progress: args.quiet ? 'off' : io.stderrIsTTY ? 'tty' : 'lines',
    progressWrite: (text) => io.stderr(text),
    progressColumns: () => io.stderrColumns(),
    signal: controller.signal,
    log: (line) => io.stderr(`${line}\n`),
  });
  // A shard's verdict is of its share only: the test's is the merge's. Its exit says whether it ran (0), not what it
  // found.
  const exitCode =
    shard !== undefined && SHARD_VERDICT_EXITS.has(outcome.exitCode)
      ? EXIT.pass
      : exitUnder(args.inconclusive, outcome.exitCode);
  printJudgement(
    io,
    args.json,
    outcome.summary,
    outcome.reportDir,
    outcome.summaryPath,
    outcome.manifestSha256,
    exitCode,
    args.verbose,
  );
  await printComparison(io, args.json, outcome, exitCode);
  for (const line of describeEnding(outcome)) io.stderr(`${line}\n`);
  return exitCode;
}

/** The comparison with the baseline, when there is one. */
async function printComparison(
  io: Io,
  json: boolean,
  outcome: Awaited<ReturnType<typeof executeRun>>,
  exitCode: number,
): Promise<void> {
  if (outcome.comparison === undefined) return;
  const { formatComparison } = await import('../../judge/index.js');
  const text = formatComparison(outcome.comparison, outcome.comparison.baselineDir, outcome.reportDir, exitCode);
  // With --json, stdout is summary.json alone.
  if (json) io.stderr(text);
  else io.stdout(text);
}

async function loadBaseline(dir: string, tolerance: string) {
  const { comparedRun, parseTolerance } = await import('../../run-folder/index.js');
  return { dir, tolerance: parseTolerance(tolerance), run: await comparedRun(dir) };
}
