/**
 * The CLI: parses argv with yargs and hands each command to its module. It holds no logic of its
 * own; it maps errors to exit codes once, here (DESIGN.md "Conventions").
 */
import yargs from 'yargs';
import { LoadproofError, UsageError } from '../core/errors.js';
import { EXIT } from '../core/exit-codes.js';
import { mockOptions, runMock } from './commands/mock.js';
import { planOptions, runPlan } from './commands/plan.js';
import { reportOptions, runReport } from './commands/report.js';
import { runOptions, runRun } from './commands/run.js';
import { runSchema } from './commands/schema.js';
import { runVerify, verifyOptions } from './commands/verify.js';
import { compareOptions, runCompare } from './commands/compare.js';
import { deidOptions, runDeid } from './commands/deid.js';
import { checkOptions, runCheckCommand } from './commands/check.js';
import { probeOptions, runProbeCommand } from './commands/probe.js';
import { mergeOptions, runMerge } from './commands/merge.js';
import { noticeOptions, runNotice } from './commands/notice.js';
import type { Io } from './io.js';

export async function main(argv: readonly string[], io: Io): Promise<number> {
  let exitCode: number = EXIT.pass;
  try {
    const parser = yargs([...argv])
      .scriptName('loadproof')
      .usage('$0 <command> [options]')
      .command('mock', 'Start the mock server of the API (until Ctrl-C)', mockOptions, async (args) => {
        exitCode = await runMock(args, io);
      })
      .command('run <scenario>', 'Run a scenario (the embedded mock by default) and check the SLA', runOptions, async (args) => {
        exitCode = await runRun(args, io);
      })
      .command('plan <scenario>', 'Show what a scenario would send (dry run: sends nothing)', planOptions, async (args) => {
        exitCode = await runPlan(args, io);
      })
      .command('report <run-dir>', 'Judge a finished run again from its folder (offline: sends nothing) and write its summary.json again', reportOptions, async (args) => {
        exitCode = await runReport(args, io);
      })
      .command('verify <run-dir>', "Check that a run folder's files are the ones its manifest.json lists (exit 0 intact, 1 not)", verifyOptions, async (args) => {
        exitCode = await runVerify(args, io);
      })
      .command('compare <baseline-dir> <run-dir>', 'Compare a run with a baseline run, phase by phase; exit 1 on a clear regression', compareOptions, async (args) => {
        exitCode = await runCompare(args, io);
      })
      .command('check <scenario>', "Preflight before booking a load test: one call to each endpoint of the scenario's target, judged against the spec, and the guard's decision", checkOptions, async (args) => {
        exitCode = await runCheckCommand(args, io);
      })
      .command('notice <scenario>', 'Draft the advance notice of a sandbox load test for support: window, rates, requests, the earliest start allowed (sends nothing)', noticeOptions, async (args) => {
        exitCode = await runNotice(args, io);
      })
      .command('deid <file>', 'De-identify one document through the API (the embedded mock by default): split, identify, obfuscate; prints the obfuscated text', deidOptions, async (args) => {
        exitCode = await runDeid(args, io);
      })
      .command('merge <run-dirs..>', 'Put the shards of one run (run --shard i/n) together as one run folder, and judge the whole plan again from all their events', mergeOptions, async (args) => {
        exitCode = await runMerge(args, io);
      })
      .command('probe [scenario]', "Saturation probe (closed loop, autocannon): step the connections up until 429s or errors begin; finds a ceiling, not an SLA", probeOptions, async (args) => {
        exitCode = await runProbeCommand(args, io);
      })
      .command('schema', 'Print the JSON Schema of scenario files', {}, () => {
        exitCode = runSchema(io);
      })
      .demandCommand(1, 'name a command: run, plan, report, verify, compare, check, notice, deid, probe, merge, mock, schema')
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
      .wrap(Math.min(110, process.stdout.columns ?? 110));
    await parser.parseAsync();
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
    io.stderr(`loadproof: ${error.code}: ${error.message}\n${error.hint === undefined ? '' : `  hint: ${error.hint}\n`}`);
    return error.exitCode;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.stderr(`loadproof: internal error (a bug; please report it):\n${detail}\n`);
  return EXIT.runFailed;
}
