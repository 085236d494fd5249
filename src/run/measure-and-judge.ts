/**
 * Steps 2 to 4 of a run, for a run that step 1 (prepare.ts) let through:
 *  2. the run folder (a bad --out is exit 2, before anything is sent) and the target (open-run.ts);
 *  3. measure (measure.ts);
 *  4. judge the measurement and finish the folder as `report` does (judge-and-finish.ts).
 * The folder keeps what is needed to judge the run again: the scenario as run, run.json (the plan's
 * identity, the loadproof version, the target, the guard's decision; at the end, the engine's and the
 * generator's figures) and events.ndjson, one line per planned request.
 * Nothing measured is dropped because a file could not be written: the failure is named and the exit is 4.
 * Every secret is added to the mask as soon as it is known, and every line written passes through it.
 */
import { createHash } from 'node:crypto';
import { extname } from 'node:path';

import { LOADPROOF_VERSION } from '../core/index.js';
import { EventSink, guardRecord, RUN_RECORD_SCHEMA_VERSION, type RunEnd, type RunRecord } from '../judge/index.js';
import { dropClaim } from '../run-folder/index.js';
import type { ResolvedTarget } from '../target/index.js';
import { createTextSource } from '../texts/index.js';
import { folderWrites } from './folder-writes.js';
import { judgeAndFinish } from './judge-and-finish.js';
import { measure } from './measure.js';
import { exposureWarning } from './metrics/listen.js';
import { RunMetrics } from './metrics/run-metrics.js';
import { checkBaselineShares, type OpenedRun, openRun } from './open-run.js';
import { encodeDocumentPieces } from './plan-scenario.js';
import type { PreparedRun, RunOptions, RunOutcome } from './run-options.js';

const sha256 = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** Steps 2 to 4, for a run that step 1 ({@link prepare}, in prepare.ts) let through. */
export async function measureAndJudge(options: RunOptions, prepared: PreparedRun): Promise<RunOutcome> {
  const { scenario, plan } = prepared;
  const metrics =
    options.metrics === undefined
      ? undefined
      : new RunMetrics(plan, {
          scenario: scenario.name,
          environment: scenario.target.environment,
          timeScale: options.timeScale,
        });
  // Listening before anything is made or sent: a port in use is bad input (exit 2), with nothing to clean up.
  const server = metrics === undefined ? undefined : await serveMetrics(options.metrics!, metrics);
  if (server !== undefined) {
    options.log(`loadproof: metrics: ${server.url} (OpenMetrics or Prometheus text, while the run lasts)`);
    const warning = exposureWarning(server.exposure, server.url);
    if (warning !== null) options.log(warning);
  }
  try {
    return await measureAndReport(options, prepared, metrics);
  } finally {
    await server?.close();
  }
}

/** The metrics server, whose code loads only for a run that asks for it (--metrics-port). */
async function serveMetrics({ host, port }: NonNullable<RunOptions['metrics']>, metrics: RunMetrics) {
  const { startMetricsServer } = await import('./metrics/server.js');
  return startMetricsServer(host, port, () => metrics.families());
}

async function measureAndReport(
  options: RunOptions,
  prepared: PreparedRun,
  metrics: RunMetrics | undefined,
): Promise<RunOutcome> {
  checkBaselineShares(options, prepared);
  const startedAt = new Date();
  const opened = await openRun(options, prepared, startedAt);
  try {
    return await recordAndJudge(options, prepared, opened, startedAt, metrics);
  } finally {
    // A run that failed after measuring keeps its folder (evidence), not its claim.
    await dropClaim(opened.claimed);
    await opened.target.embedded?.close();
  }
}

/**
 * Steps 3 and 4: the scenario's copy and run.json first, then the load, then run.json's end, the judgement and the
 * reports.
 */
async function recordAndJudge(
  options: RunOptions,
  prepared: PreparedRun,
  opened: OpenedRun,
  startedAt: Date,
  metrics: RunMetrics | undefined,
): Promise<RunOutcome> {
  const { scenario, scenarioText, plan, userTexts } = prepared;
  const { target, events, documentsLog, reportDir } = opened;
  options.secrets.add(target.clientSecret);
  for (const secret of target.proxy?.secrets ?? []) options.secrets.add(secret);
  for (const warning of target.warnings) options.log(`loadproof: warning: ${warning}`);
  const writes = folderWrites(reportDir, options.secrets);
  const scenarioFile = extname(options.scenarioFile).toLowerCase() === '.json' ? 'scenario.json' : 'scenario.yaml';
  const scenarioWritten = await writes.writeText(scenarioFile, scenarioText);
  const run = runRecordAtStart(options, prepared, target, scenarioFile, startedAt);
  // Written before the load, so a run that never records its end can still be judged (partial).
  const runStartWritten = await writes.writeRunJson(run);
  const sink = new EventSink(plan);
  const measured = await measure(
    {
      plan,
      target,
      events,
      sink,
      texts: createTextSource(scenario.payload, userTexts, scenario.mode),
      documentsLog,
      metrics,
    },
    options,
  );
  const logsClosed = [
    writes.relative(await events.close()),
    ...(documentsLog === undefined ? [] : [writes.relative(await documentsLog.close())]),
  ];
  const end: RunEnd = { ...measured.end, endedAt: new Date().toISOString(), files: [scenarioWritten, ...logsClosed] };
  const runEndWritten = await writes.writeRunJson({ ...run, end });
  const runFile = [runStartWritten, runEndWritten].find((f) => f.error !== null);
  return judgeAndFinish(options, prepared, opened, writes, { run, end, sink, runFile, measured });
}

/**
 * run.json as written before the load: the plan's identity, the version, the target and the guard's decision; no end
 * yet.
 */
function runRecordAtStart(
  options: RunOptions,
  { scenarioText, plan, planIdentity, guard }: PreparedRun,
  target: ResolvedTarget,
  scenarioFile: string,
  startedAt: Date,
): RunRecord {
  return {
    schemaVersion: RUN_RECORD_SCHEMA_VERSION,
    loadproofVersion: LOADPROOF_VERSION,
    scenarioFile,
    scenarioSource: options.scenarioFile,
    scenarioSha256: sha256(scenarioText),
    planIdentity,
    timeScale: plan.timeScale,
    environment: target.environment,
    target: {
      baseUrl: target.baseUrl,
      kind: target.kind,
      profile: target.profile,
      ...(target.tunnel ? { tunnel: true } : {}),
      ...(target.proxy === undefined ? {} : { proxy: target.proxy.shown }),
    },
    startedAt: startedAt.toISOString(),
    guard: guardRecord(guard),
    host: options.host,
    ...(plan.documents === undefined ? {} : { documentPieces: encodeDocumentPieces(plan)! }),
    ...(options.baseline === undefined ? {} : { baseline: options.baseline.dir }),
    ...(plan.shard === undefined ? {} : { shard: plan.shard }),
    ...(options.startAtMs === undefined ? {} : { startAt: new Date(options.startAtMs).toISOString() }),
    ...(options.capacity429Share === undefined ? {} : { capacity429Share: options.capacity429Share }),
    ...(options.idleBeforeMs === undefined
      ? {}
      : { idleBefore: { ms: options.idleBeforeMs, declaredBy: 'run', at: startedAt.toISOString() } }),
    end: null,
  };
}
