/**
 * The CLI: parses argv with yargs and hands each command to its module. It holds no logic of its
 * own; it maps errors to exit codes once, here (DESIGN.md "Conventions").
 */
import yargs, { type Argv } from 'yargs';

import { EXIT, LoadproofError, UsageError } from '../core/index.js';
import { checkOptions, runCheckCommand } from './commands/check.js';
import { compareOptions, runCompare } from './commands/compare.js';
import { deidOptions, runDeid } from './commands/deid.js';
import { mergeOptions, runMerge } from './commands/merge.js';
import { mockOptions, runMock } from './commands/mock.js';
import { noticeOptions, runNotice } from './commands/notice.js';
import { planOptions, runPlan } from './commands/plan.js';
import { probeOptions, runProbeCommand } from './commands/probe.js';
import { reportOptions, runReport } from './commands/report.js';
import { runOptions, runRun } from './commands/run.js';
import { runSchema } from './commands/schema.js';
import { runTrend, trendOptions } from './commands/trend.js';
import { runVerify, verifyOptions } from './commands/verify.js';
import type { Io } from './io.js';

/**
 * Every command of the CLI, once. `sends` classifies it: a command that sends to a target gets there
 * only through a guard permit (src/guard/permit.ts); test/cli/commands-guarded.test.ts enumerates this
 * table, so a new command fails that test until it is classified and shown to obey it.
 */
export interface CommandEntry {
  readonly name: string;
  readonly usage: string;
  readonly describe: string;
  readonly sends: boolean;
  // Each entry's builder and handler agree (command() checks them); the table erases their argument types.
  readonly options: (y: Argv) => Argv<any>;
  readonly run: (args: any, io: Io) => Promise<number> | number;
}

function command<B extends (y: Argv) => Argv<any>>(
  usage: string,
  describe: string,
  sends: boolean,
  options: B,
  run: (args: Awaited<ReturnType<B>['argv']>, io: Io) => Promise<number> | number,
): CommandEntry {
  return { name: usage.split(' ')[0]!, usage, describe, sends, options, run };
}

export const COMMANDS: readonly CommandEntry[] = [
  command('mock', 'Start the mock server of the API (until Ctrl-C)', false, mockOptions, runMock),
  command(
    'run <scenario>',
    'Run a scenario (the embedded mock by default) and check the SLA',
    true,
    runOptions,
    runRun,
  ),
  command('plan <scenario>', 'Show what a scenario would send (dry run: sends nothing)', false, planOptions, runPlan),
  command(
    'report <run-dir>',
    'Judge a finished run again from its folder (offline: sends nothing) and write its summary.json again',
    false,
    reportOptions,
    runReport,
  ),
  command(
    'verify <run-dir>',
    "Check that a run folder's files are the ones its manifest.json lists (exit 0 intact, 1 not)",
    false,
    verifyOptions,
    runVerify,
  ),
  command(
    'compare <baseline-dir> <run-dir>',
    'Compare a run with a baseline run, phase by phase; exit 1 on a clear regression',
    false,
    compareOptions,
    runCompare,
  ),
  command(
    'trend <dirs..>',
    'p95, goodput, 429 and error rates per phase across runs (PNG, HTML, Markdown), each run flagged where compare would flag it',
    false,
    trendOptions,
    runTrend,
  ),
  command(
    'check <scenario>',
    "Preflight before booking a load test: one call to each endpoint of the scenario's target, judged against the spec, and the guard's decision",
    true,
    checkOptions,
    runCheckCommand,
  ),
  command(
    'notice <scenario>',
    'Draft the advance notice of a sandbox load test for support: window, rates, requests, the earliest start allowed (sends nothing)',
    false,
    noticeOptions,
    runNotice,
  ),
  command(
    'deid <file>',
    'De-identify one document through the API (the embedded mock by default): split, identify, obfuscate; prints the obfuscated text',
    true,
    deidOptions,
    runDeid,
  ),
  command(
    'merge <run-dirs..>',
    'Put the shards of one run (run --shard i/n) together as one run folder, and judge the whole plan again from all their events',
    false,
    mergeOptions,
    runMerge,
  ),
  command(
    'probe [scenario]',
    'Saturation probe (closed loop, autocannon): step the connections up until 429s or errors begin; finds a ceiling, not an SLA',
    true,
    probeOptions,
    runProbeCommand,
  ),
  command(
    'schema',
    'Print the JSON Schema of scenario files',
    false,
    (y) => y,
    (_args, io) => runSchema(io),
  ),
];

/**
 * A numeric flag given twice takes its last value. yargs-parser, with duplicate arrays off, takes a
 * number equal to 1 for a count and adds it to the value before (`--time-scale 20 --time-scale 1`
 * gave 21). So the parser reads a numeric flag as the string it is, which it replaces as a whole,
 * and our coercion makes it a number afterwards.
 */
function lastNumberWins(y: Argv): Argv {
  // getOptions() is yargs' own (untyped in @types/yargs): the options declared so far, by type.
  const numbers = (y as unknown as { getOptions(): { number?: string[] } }).getOptions().number ?? [];
  // And a numeric flag needs its value: given bare, yargs counted it as 1 and added that too (`--time-scale 2
  // --time-scale` gave 3).
  for (const key of numbers) y.string(key).requiresArg(key).coerce(key, toNumber);
  return y;
}

/** A flag's number; an empty value is not 0 (for --metrics-port, 0 would mean "any port"). */
function toNumber(value: unknown): unknown {
  const last = Array.isArray(value) ? value.at(-1) : value;
  if (typeof last === 'number' || last === undefined) return last;
  const text = String(last).trim();
  return text === '' ? Number.NaN : Number(text);
}

/** The parser of the CLI: every command of COMMANDS, each handed to `onCommand` with its parsed arguments. */
export function cliParser(
  argv: readonly string[],
  onCommand: (entry: CommandEntry, args: unknown) => Promise<void> | void,
): Argv {
  let parser = yargs([...argv])
    .scriptName('loadproof')
    .usage('$0 <command> [options]');
  for (const entry of COMMANDS) {
    parser = parser.command(
      entry.usage,
      entry.describe,
      (y) => lastNumberWins(entry.options(y)),
      async (args) => {
        await onCommand(entry, args);
      },
    );
  }
  return (
    parser
      .demandCommand(1, `name a command: ${COMMANDS.map((c) => c.name).join(', ')}`)
      .strict()
      // A flag given twice takes its last value (as most CLIs do), not an array.
      .parserConfiguration({ 'duplicate-arguments-array': false })
      .exitProcess(false)
      .fail((message, error) => {
        // yargs' own validation errors (YError: a flag without its value, …) are bad input like the rest.
        if (error && error.name === 'YError') throw new UsageError(error.message, 'see loadproof --help');
        if (error) throw error;
        throw new UsageError(message ?? 'invalid arguments', 'see loadproof --help');
      })
      .help()
      .version()
      .wrap(Math.min(110, process.stdout.columns ?? 110))
  );
}

export async function main(argv: readonly string[], io: Io): Promise<number> {
  let exitCode: number = EXIT.pass;
  try {
    await cliParser(argv, async (entry, args) => {
      exitCode = await entry.run(args, io);
    }).parseAsync();
    return exitCode;
  } catch (error) {
    return reportError(error, io);
  } finally {
    // Files are written: the command's secrets leave the mask of every file written (src/core/redact.ts).
    io.secrets.close();
  }
}

function reportError(error: unknown, io: Io): number {
  if (error instanceof LoadproofError) {
    io.stderr(
      `loadproof: ${error.code}: ${error.message}\n${error.hint === undefined ? '' : `  hint: ${error.hint}\n`}`,
    );
    return error.exitCode;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.stderr(`loadproof: internal error (a bug; please report it):\n${detail}\n`);
  return EXIT.runFailed;
}
