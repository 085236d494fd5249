/** The tinyproxy of a test process that exits without closing it does not outlive that process. */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { HAVE_TINYPROXY } from './tinyproxy.js';

const HELPER = fileURLToPath(new URL('./tinyproxy.ts', import.meta.url));

/** Starts a proxy in a node child that then exits at once, its close() never called; the proxy's pid. */
async function pidOfAbandonedProxy(): Promise<number> {
  const script = `
    const { createJiti } = await import('jiti');
    const { startTinyproxy } = await createJiti(import.meta.url).import(${JSON.stringify(HELPER)});
    const proxy = await startTinyproxy({ connectPort: 9 });
    process.stdout.write(String(proxy.pid));
    process.exit(0);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code, err).toBe(0);
  return Number(out);
}

/** Whether `pid` is a process still running (a zombie nobody reaped has ended). */
function running(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  const state = readFileSync(stat, 'utf8').replace(/^.*\) /, '')[0];
  return state !== 'Z' && state !== 'X';
}

const WHICH = HAVE_TINYPROXY ? 'tinyproxy' : 'skipped: /usr/bin/tinyproxy is not installed';
describe.skipIf(!HAVE_TINYPROXY)(`a test's proxy (${WHICH})`, () => {
  it('is killed when the test process exits without closing it', async () => {
    const pid = await pidOfAbandonedProxy();
    expect(pid).toBeGreaterThan(0);
    try {
      // SIGKILL is sent as the process exits: the proxy is gone by the time its exit is seen, but for the kernel's
      // own bookkeeping, waited on for a bounded while (a safety bound, not a speed check).
      for (let i = 0; i < 200 && running(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(running(pid)).toBe(false);
    } finally {
      if (running(pid)) process.kill(pid, 'SIGKILL');
    }
  });
});
