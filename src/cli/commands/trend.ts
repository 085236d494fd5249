/**
 * `loadproof trend <dir>...`: p95, goodput, 429 and error rates per phase across runs, flagged where compare would.
 * Wires the trend module to the process; no logic here.
 */
import type { Argv } from 'yargs';

import { echoValue, EXIT } from '../../core/index.js';
import type { Io } from '../io.js';

export function trendOptions<T>(y: Argv<T>) {
  return (
    y
      // The CLI takes a flag given twice as its last value (main.ts), which would also keep only the last folder.
      .parserConfiguration({ 'duplicate-arguments-array': true })
      .positional('dirs', {
        type: 'string',
        array: true,
        demandOption: true,
        describe: 'Run folders, or folders of run folders (reports/)',
      })
      .option('out', { type: 'string', default: 'trend', describe: 'Folder for trend.md, trend.html and the PNGs' })
      .option('baseline', {
        type: 'string',
        describe:
          'A run folder each run of its scenario is compared with (default: each run with the first run of its scenario)',
      })
      .option('tolerance', {
        type: 'string',
        default: '10%',
        describe: "How far above the other run's p95 interval a run's must lie to be flagged (10% or 0.1)",
      })
      .option('fail-on-flag', {
        type: 'boolean',
        default: false,
        describe: "Exit 1 when a scenario's latest run is flagged (for CI)",
      })
      // …and a flag given twice still takes its last value, as everywhere else.
      .coerce(['out', 'baseline', 'tolerance', 'fail-on-flag'], (value: unknown) =>
        Array.isArray(value) ? value.at(-1) : value,
      )
  );
}

type TrendArgs = Awaited<ReturnType<typeof trendOptions>['argv']>;

export async function runTrend(args: TrendArgs, io: Io): Promise<number> {
  const [{ writeTrend }, { parseTolerance }] = await Promise.all([
    import('../../trend/index.js'),
    import('../../run-folder/index.js'),
  ]);
  const result = await writeTrend({
    dirs: args.dirs,
    out: args.out,
    baseline: args.baseline,
    tolerance: parseTolerance(args.tolerance),
  });
  for (const s of result.skipped) io.stderr(`loadproof: skipped ${echoValue(s.dir)}: ${s.reason}\n`);
  for (const s of result.sections) io.stdout(`${s.line}\n`);
  io.stdout(`written: ${result.files.map(echoValue).join(', ')}\n`);
  return args['fail-on-flag'] && result.sections.some((s) => s.latestFlagged) ? EXIT.slaNotMet : EXIT.pass;
}
