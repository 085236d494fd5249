/** Step 2 of a run: the run folder (a bad --out is exit 2, before anything is sent) and the target. */
import { join } from 'node:path';

import { UsageError } from '../core/index.js';
import { claimRunFolder, EventLog, makeRunFolder, releaseRunFolder } from '../run-folder/index.js';
import { type ResolvedTarget, resolveTarget } from '../target/index.js';
import type { PreparedRun, RunOptions } from './run-options.js';

/** The run's folder, claimed, with its event logs open, and the target the run sends to. */
export interface OpenedRun {
  readonly claimed: Awaited<ReturnType<typeof claimRunFolder>>;
  readonly reportDir: string;
  readonly events: EventLog;
  readonly documentsLog: EventLog | undefined;
  readonly target: ResolvedTarget;
}

/** A baseline is compared phase by phase, by name: one with none of this plan's phases would compare nothing. */
export function checkBaselineShares(options: RunOptions, { scenario, plan }: PreparedRun): void {
  const baselinePhases = options.baseline?.run.summary.phases.map((p) => p.name);
  if (baselinePhases !== undefined && !plan.phases.some((p) => baselinePhases.includes(p.name))) {
    throw new UsageError(
      `--baseline ${options.baseline!.dir}: none of its phases (${baselinePhases.join(', ')}) is a phase of ${scenario.name} (${plan.phases.map((p) => p.name).join(', ')})`,
      'compare runs of the same scenario, or of scenarios whose phases share names; nothing was sent',
    );
  }
}

/** Step 2: the folder and the target, before anything is sent; on a failure, nothing this run made is left. */
export async function openRun(
  options: RunOptions,
  { scenario, plan, permit }: PreparedRun,
  startedAt: Date,
): Promise<OpenedRun> {
  // --run-dir is claimed exclusively: a second command claiming it is refused at once (exit 2), before anything is
  // sent.
  const claimed =
    options.runDir === undefined
      ? { dir: await makeRunFolder(options.outDir, scenario.name, startedAt), made: true, token: null }
      : await claimRunFolder(options.runDir);
  const reportDir = claimed.dir;
  const created: string[] = [];
  const opened: EventLog[] = [];
  try {
    const events = await EventLog.open(join(reportDir, 'events.ndjson'));
    created.push('events.ndjson');
    opened.push(events);
    let documentsLog: EventLog | undefined;
    if (plan.documents !== undefined) {
      documentsLog = await EventLog.open(join(reportDir, 'documents.ndjson'));
      created.push('documents.ndjson');
      opened.push(documentsLog);
    }
    const target = await resolveTarget(scenario, permit, {
      timeScale: plan.timeScale,
      mockProfile: options.mockProfile,
      env: options.env,
      credentialsFile: options.credentialsFile,
      caFile: options.caFile,
    });
    return { claimed, reportDir, events, documentsLog, target };
  } catch (error) {
    // Nothing was sent and nothing measured: leave no folder behind (a --run-dir the user made is left empty), and only
    // what this run made goes.
    for (const log of opened) await log.close().catch(() => {});
    await releaseRunFolder(claimed, created);
    throw error;
  }
}
