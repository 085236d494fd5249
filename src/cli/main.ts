/**
 * The CLI: parses argv with yargs and hands each command to its module. It holds no logic of its
 * own; it maps errors to exit codes once, here (DESIGN.md "Conventions").
 */
import yargs, { type Argv } from 'yargs';

import { EXIT, LoadproofError, UsageError } from '../core/index.js';
import { withoutHelpCache } from './help-cache.js';
import type { Io } from './io.js';

/** A command's options (its yargs builder) and its handler, which agree on the arguments' type. */
export interface CommandModule {
  // The builder and handler agree (bind() checks them); the table erases their argument types.
  readonly options: (y: Argv) => Argv<any>;
  readonly run: (args: any, io: Io) => Promise<number> | number;
}

/**
 * Every command of the CLI, once. `sends` classifies it: a command that sends to a target gets there
 * only through a guard permit (src/guard/permit.ts); test/cli/commands-guarded.test.ts enumerates this
 * table, so a new command fails that test until it is classified and shown to obey it. `load` imports the
 * command's module only when that command is asked for: each pulls in its own part of loadproof, and a run
 * should not pay for the rest.
 */
export interface CommandEntry {
  readonly name: string;
  readonly usage: string;
  readonly describe: string;
  readonly sends: boolean;
  readonly load: () => Promise<CommandModule>;
}

/** A command's builder and handler, checked to agree on the arguments. */
function bind<B extends (y: Argv) => Argv<any>>(
  options: B,
  run: (args: Awaited<ReturnType<B>['argv']>, io: Io) => Promise<number> | number,
): CommandModule {
  return { options, run };
}

function command(usage: string, describe: string, sends: boolean, load: () => Promise<CommandModule>): CommandEntry {
  return { name: usage.split(' ')[0]!, usage, describe, sends, load };
}

export const COMMANDS: readonly CommandEntry[] = [
  command('mock', 'Start the mock server of the API (until Ctrl-C)', false, async () => {
    const m = await import('./commands/mock.js');
    return bind(m.mockOptions, m.runMock);
  }),
  command('run <scenario>', 'Run a scenario (the embedded mock by default) and check the SLA', true, async () => {
    const m = await import('./commands/run.js');
    return bind(m.runOptions, m.runRun);
  }),
  command('plan <scenario>', 'Show what a scenario would send (dry run: sends nothing)', false, async () => {
    const m = await import('./commands/plan.js');
    return bind(m.planOptions, m.runPlan);
  }),
  command(
    'report <run-dir>',
    'Judge a finished run again from its folder (offline: sends nothing) and write its summary.json again',
    false,
    async () => {
      const m = await import('./commands/report.js');
      return bind(m.reportOptions, m.runReport);
    },
  ),
  command(
    'verify <run-dir>',
    "Check that a run folder's files are the ones its manifest.json lists (exit 0 intact, 1 not)",
    false,
    async () => {
      const m = await import('./commands/verify.js');
      return bind(m.verifyOptions, m.runVerify);
    },
  ),
  command(
    'compare <baseline-dir> <run-dir>',
    'Compare a run with a baseline run, phase by phase; exit 1 on a clear regression',
    false,
    async () => {
      const m = await import('./commands/compare.js');
      return bind(m.compareOptions, m.runCompare);
    },
  ),
  command(
    'trend <dirs..>',
    'p95, goodput, 429 and error rates per phase across runs (PNG, HTML, Markdown), each run flagged where compare would flag it',
    false,
    async () => {
      const m = await import('./commands/trend.js');
      return bind(m.trendOptions, m.runTrend);
    },
  ),
  command(
    'check <scenario>',
    "Preflight before booking a load test: one call to each endpoint of the scenario's target, judged against the spec, and the guard's decision",
    true,
    async () => {
      const m = await import('./commands/check.js');
      return bind(m.checkOptions, m.runCheckCommand);
    },
  ),
  command(
    'notice <scenario>',
    'Draft the advance notice of a sandbox load test for support: window, rates, requests, the earliest start allowed (sends nothing)',
    false,
    async () => {
      const m = await import('./commands/notice.js');
      return bind(m.noticeOptions, m.runNotice);
    },
  ),
  command(
    'deid <file>',
    'De-identify one document through the API (the embedded mock by default): split, identify, obfuscate; prints the obfuscated text',
    true,
    async () => {
      const m = await import('./commands/deid.js');
      return bind(m.deidOptions, m.runDeid);
    },
  ),
  command(
    'merge <run-dirs..>',
    'Put the shards of one run (run --shard i/n) together as one run folder, and judge the whole plan again from all their events',
    false,
    async () => {
      const m = await import('./commands/merge.js');
      return bind(m.mergeOptions, m.runMerge);
    },
  ),
  command(
    'probe [scenario]',
    'Saturation probe (closed loop, autocannon): step the connections up until 429s or errors begin; finds a ceiling, not an SLA',
    true,
    async () => {
      const m = await import('./commands/probe.js');
      return bind(m.probeOptions, m.runProbeCommand);
    },
  ),
  command('schema', 'Print the JSON Schema of scenario files', false, async () => {
    const m = await import('./commands/schema.js');
    return bind(
      (y) => y,
      (_args, io) => m.runSchema(io),
    );
  }),
];

/**
 * The commands `argv` may run, loaded: the one it names first, or all of them (for --help, a misspelt command, a flag
 * before the command), so that yargs lists and checks them as before.
 */
export async function loadCommands(argv: readonly string[] = []): Promise<(CommandEntry & CommandModule)[]> {
  const named = COMMANDS.filter((c) => c.name === argv[0]);
  return Promise.all((named.length === 1 ? named : COMMANDS).map(async (c) => ({ ...c, ...(await c.load()) })));
}

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

/** The parser of the CLI: the commands of COMMANDS that `argv` may run, each given to `onCommand` with its args. */
export async function cliParser(
  argv: readonly string[],
  onCommand: (entry: CommandEntry & CommandModule, args: unknown) => Promise<void> | void,
): Promise<Argv> {
  // English, as every other line loadproof prints: yargs would otherwise follow LANG for its own words only, from
  // locale files it finds beside its code (not beside the bundle).
  let parser = yargs([...argv])
    .detectLocale(false)
    .scriptName('loadproof')
    .usage('$0 <command> [options]');
  for (const entry of await loadCommands(argv)) {
    parser = parser.command(
      entry.usage,
      entry.describe,
      (y) => lastNumberWins(entry.options(y)),
      async (args) => {
        await onCommand(entry, args);
      },
    );
  }
  return withoutHelpCache(
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
      .wrap(Math.min(110, process.stdout.columns ?? 110)),
  );
}

export async function main(argv: readonly string[], io: Io): Promise<number> {
  let exitCode: number = EXIT.pass;
  try {
    const parser = await cliParser(argv, async (entry, args) => {
      exitCode = await entry.run(args, io);
    });
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
    io.stderr(
      `loadproof: ${error.code}: ${error.message}\n${error.hint === undefined ? '' : `  hint: ${error.hint}\n`}`,
    );
    return error.exitCode;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.stderr(`loadproof: internal error (a bug; please report it):\n${detail}\n`);
  return EXIT.runFailed;
}
