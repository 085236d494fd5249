/** Spawns the built CLI (bin/loadproof.js → dist/bundle/) as a child process, as a user would run it. */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/loadproof.js', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));
const BUNDLED = fileURLToPath(new URL('../../dist/bundle/bin.js', import.meta.url));

export interface CliProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves with the first line the process prints on stdout. */
  readonly firstLine: Promise<string>;
  /** Resolves with the exit code and everything printed. */
  readonly exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/**
 * How long a child may live before it is killed: a bound on a hung process, not a speed check. On a busy
 * machine (two CPU hogs and other work on 2 cores) a node start-up alone took over 7 s, so 15 s killed
 * healthy runs (exit null); below the 90 s test timeout (vitest.config.ts), so that a hung child fails its test, said.
 */
export const CHILD_LIMIT_MS = 60_000;

export function startCli(
  args: readonly string[],
  env: Record<string, string> = {},
  limitMs = CHILD_LIMIT_MS,
): CliProcess {
  if (!existsSync(BUNDLED)) throw new Error('dist/bundle/ is missing: run `npm run build` (npm test does it first)');
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      const newline = stdout.indexOf('\n');
      if (newline >= 0) resolve(stdout.slice(0, newline));
    });
    child.on('exit', () => reject(new Error(`exited before printing a line; stderr: ${stderr}`)));
  });
  firstLine.catch(() => {});
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  // Bounded: no test leaves a child behind.
  const guard = setTimeout(() => child.kill('SIGKILL'), limitMs);
  void exited.then(() => clearTimeout(guard));
  return { child, firstLine, exited };
}

/** Runs the CLI to completion. */
export function runCli(
  args: readonly string[],
  env: Record<string, string> = {},
  limitMs?: number,
): CliProcess['exited'] {
  return startCli(args, env, limitMs).exited;
}

/** A fresh temporary folder holding `scenario.yaml`, with `out` (not yet made) for the run's reports. */
export function scenarioWorkspace(scenario: string): { dir: string; file: string; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'loadproof-test-'));
  const file = join(dir, 'scenario.yaml');
  writeFileSync(file, scenario);
  return { dir, file, out: join(dir, 'reports') };
}

const BUILT_MAIN = new URL('../../dist/cli/main.js', import.meta.url).href;

/**
 * Runs the built CLI's `main(argv, io)` inside this process, with a captured Io that masks secrets and
 * escapes terminal controls as the real one does (src/cli/io.ts `printable`; data such as deid's document as
 * into a pipe, `dataText`): what a command decides (validation, judgement, files written, exit code) without
 * the ~0.5 s of CPU a node start-up costs. It loads dist/ (not src/) because an embedded run starts
 * the mock in a worker thread from dist/mock/worker.js. What only a process shows (signals, the
 * separation of the real stdout and stderr, a crash outside main) stays with {@link runCli}.
 * `stop`: a SIGINT that reaches the command when it resolves (once), as Ctrl-C would: a test ends a run when it has
 * seen what it waits for, not after a pause of wall time.
 */
export async function runMain(
  args: readonly string[],
  env: Record<string, string> = {},
  stdin = '',
  stop?: Promise<void>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  if (!existsSync(BUILT)) throw new Error('dist/ is missing: run `npm run build` (npm test does it first)');
  const { main } = (await import(BUILT_MAIN)) as typeof import('../../src/cli/main.js');
  const { SecretMask } = (await import(
    new URL('../../dist/core/redact.js', import.meta.url).href
  )) as typeof import('../../src/core/redact.js');
  const { dataText, printable } = (await import(
    new URL('../../dist/cli/io.js', import.meta.url).href
  )) as typeof import('../../src/cli/io.js');
  const secrets = new SecretMask();
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: (text) => (stdout += printable(secrets, text)),
    stderr: (text) => (stderr += printable(secrets, text)),
    // Captured as a pipe would get it: data exact, secrets masked.
    stdoutData: (text) => (stdout += dataText(secrets, text, false)),
    secrets,
    env: { ...process.env, ...env },
    argv: args,
    cwd: process.cwd(),
    // No signal reaches an in-process run: signal tests spawn the CLI.
    stderrIsTTY: false,
    stderrColumns: () => undefined,
    readStdin: async (maxBytes: number) => (Buffer.byteLength(stdin) > maxBytes ? undefined : stdin),
    waitForSignal: () => {
      const signal = stop?.then(() => 'SIGINT' as const) ?? new Promise<never>(() => {});
      stop = undefined;
      return signal;
    },
  });
  return { code, stdout, stderr };
}

/** The run folders made under `out`, sorted: every entry but the `latest` link. */
export function runFolders(out: string): string[] {
  return readdirSync(out)
    .filter((f) => f !== 'latest')
    .sort();
}
