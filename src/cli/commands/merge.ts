/**
 * `loadproof merge <run-dir>...`: the shards of one run put together and judged as one. Wires modules; no logic here.
 */

import type { Argv } from 'yargs';

import { EXIT } from '../../core/index.js';
import type { Io } from '../io.js';
import { holdForTests, judgementOptions, printFolderJudgement, stopOnSignal } from './judgement-output.js';

export function mergeOptions<T>(y: Argv<T>) {
  return (
    judgementOptions(y)
      // The CLI takes a flag given twice as its last value (main.ts), which would also keep only the last folder: not
      // here.
      .parserConfiguration({ 'duplicate-arguments-array': true })
      .positional('run-dirs', {
        type: 'string',
        array: true,
        demandOption: true,
        describe: 'The folder of every shard (run --shard i/n) of one run, in any order',
      })
      .option('out', { type: 'string', default: 'reports', describe: 'Folder in which the merged run folder is made' })
      .option('run-dir', {
        type: 'string',
        describe: 'The exact folder for the merged run (made if missing; refused if it holds a run)',
      })
      // …and a flag given twice still takes its last value, as everywhere else.
      .coerce(['out', 'run-dir', 'json', 'charts', 'inconclusive'], (value: unknown) =>
        Array.isArray(value) ? value.at(-1) : value,
      )
  );
}

type MergeArgs = Awaited<ReturnType<typeof mergeOptions>['argv']>;

export async function runMerge(args: MergeArgs, io: Io): Promise<number> {
  const { mergeAndJudge } = await import('../../run-folder/index.js');
  const signal = stopOnSignal(io, 'no merged folder is left, unless it was already whole');
  const beforeCommit = holdForTests(io, 'merge:before-commit', signal);
  const judged = await mergeAndJudge(
    {
      dirs: args['run-dirs'].map(String),
      outDir: args.out,
      ...(args['run-dir'] === undefined ? {} : { runDir: args['run-dir'] }),
      signal,
      ...(beforeCommit === undefined ? {} : { beforeCommit }),
    },
    { now: () => new Date(), pngCharts: args.charts },
  );
  const exitCode = printFolderJudgement(io, args, judged);
  // A signal after the merged folder took its name: it is whole, and the exit says it was stopped.
  return signal.aborted ? EXIT.interrupted : exitCode;
}
