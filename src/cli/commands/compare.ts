/**
 * `loadproof compare <baseline-dir> <run-dir>`: a run against a baseline. Wires the compare module to the process; no
 * logic here.
 */
import type { Argv } from 'yargs';

import { EXIT } from '../../core/index.js';
import type { Io } from '../io.js';

export function compareOptions<T>(y: Argv<T>) {
  return y
    .positional('baseline-dir', { type: 'string', demandOption: true, describe: 'The baseline run folder' })
    .positional('run-dir', { type: 'string', demandOption: true, describe: 'The run folder compared with it' })
    .option('tolerance', {
      type: 'string',
      default: '10%',
      describe: "How far above the baseline's p95 interval the run's must lie to be a regression (10% or 0.1)",
    })
    .option('json', {
      type: 'boolean',
      default: false,
      describe: 'Print the comparison as JSON on stdout instead of the table',
    });
}

type CompareArgs = Awaited<ReturnType<typeof compareOptions>['argv']>;

export async function runCompare(args: CompareArgs, io: Io): Promise<number> {
  const [{ formatComparison }, { compareFolders, parseTolerance }] = await Promise.all([
    import('../../judge/index.js'),
    import('../../run-folder/index.js'),
  ]);
  const tolerance = parseTolerance(args.tolerance);
  const comparison = await compareFolders(args['baseline-dir'], args['run-dir'], { tolerance });
  const exitCode = comparison.regression
    ? EXIT.slaNotMet
    : comparison.inconclusive === true
      ? EXIT.inconclusive
      : EXIT.pass;
  io.stdout(
    args.json
      ? `${JSON.stringify(comparison, null, 2)}\n`
      : formatComparison(comparison, args['baseline-dir'], args['run-dir'], exitCode),
  );
  return exitCode;
}
