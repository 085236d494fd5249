/** Spawns the built CLI (bin/loadproof.js → dist/) as a child process, as a user would run it. */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/loadproof.js', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));

export interface CliProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves with the first line the process prints on stdout. */
  readonly firstLine: Promise<string>;
  /** Resolves with the exit code and everything printed. */
  readonly exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

export function startCli(args: readonly string[], env: Record<string, string> = {}, limitMs = 15_000): CliProcess {
  if (!existsSync(BUILT)) throw new Error('dist/ is missing: run `npm run build` (npm test does it first)');
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
export function runCli(args: readonly string[], env: Record<string, string> = {}, limitMs?: number): CliProcess['exited'] {
  return startCli(args, env, limitMs).exited;
}

/** A fresh temporary folder holding `scenario.yaml`, with `out` (not yet made) for the run's reports. */
export function scenarioWorkspace(scenario: string): { dir: string; file: string; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'loadproof-test-'));
  const file = join(dir, 'scenario.yaml');
  writeFileSync(file, scenario);
  return { dir, file, out: join(dir, 'reports') };
}
