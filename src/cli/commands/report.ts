/**
 * `loadproof report <run-dir>`: judge a finished run again, offline. Wires the report module to the process; no logic
 * here.
 */

import type { Argv } from 'yargs';

import { EXIT } from '../../core/index.js';
import { parseBriefClientId } from '../../report/index.js';
import { parseDurationFlag } from '../../scenario/index.js';
import type { Io } from '../io.js';
import {
  BRIEF_CLIENT_ID_OPTION,
  CAPACITY_429_SHARE_OPTION,
  capacity429Share,
  holdForTests,
  IDLE_BEFORE_OPTION,
  judgementOptions,
  printFolderJudgement,
  stopOnSignal,
} from './judgement-output.js';

export function reportOptions<T>(y: Argv<T>) {
  return judgementOptions(y)
    .positional('run-dir', {
      type: 'string',
      demandOption: true,
      describe:
        'A run folder (reports/<time>-<scenario>): judged again from its scenario copy, run.json and events.ndjson',
    })
    .option('idle-before', IDLE_BEFORE_OPTION)
    .option('capacity-429-share', CAPACITY_429_SHARE_OPTION)
    .option('brief-client-id', BRIEF_CLIENT_ID_OPTION);
}

type ReportArgs = Awaited<ReturnType<typeof reportOptions>['argv']>;

export async function runReport(args: ReportArgs, io: Io): Promise<number> {
  const idleBefore =
    args['idle-before'] === undefined ? undefined : parseDurationFlag('--idle-before', args['idle-before']);
  const share = await capacity429Share(args['capacity-429-share']);
  const briefClientId = args['brief-client-id'] === undefined ? undefined : parseBriefClientId(args['brief-client-id']);
  // Loaded here, not at start-up: every other command would pay for the judge's modules.
  const { judgeFolder } = await import('../../run-folder/index.js');
  const signal = stopOnSignal(
    io,
    'the folder is left as it was, or, once its files are being written, finished whole first',
  );
  const beforeWriting = holdForTests(io, 'report:before-writing', signal);
  const judged = await judgeFolder(args['run-dir'], {
    now: () => new Date(),
    pngCharts: args.charts,
    signal,
    ...(beforeWriting === undefined ? {} : { beforeWriting }),
    ...(idleBefore === undefined ? {} : { idleBeforeMs: idleBefore }),
    ...(share === undefined ? {} : { capacity429Share: share }),
    ...(briefClientId === undefined ? {} : { briefClientId }),
  });
  const exitCode = printFolderJudgement(io, args, judged);
  // A signal taken while the files were written: the folder is whole, and the exit says it was stopped.
  return signal.aborted ? EXIT.interrupted : exitCode;
}
