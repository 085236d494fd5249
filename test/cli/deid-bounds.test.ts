/**
 * `loadproof deid -` once read standard input without a bound (`deid - < /dev/zero` grew to
 * 5 GB). Standard input has the file's bound (MAX_DEID_DOCUMENT_BYTES), and reading stops there: exit 2
 * naming the bound, nothing sent.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { MAX_DEID_DOCUMENT_BYTES, MAX_DEID_DOCUMENT_CHARS } from '../../src/deid/deid-once.js';
import { BIN, runMain, scenarioWorkspace } from '../helpers/cli.js';

/** The CLI as a child process whose standard input is `path` (a device or a file); killed after 15 s. */
function deidFrom(path: string): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  const fd = openSync(path, 'r');
  const child = spawn(process.execPath, [BIN, 'deid', '-'], { stdio: [fd, 'pipe', 'pipe'] });
  closeSync(fd);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  child.stdout!.resume();
  const limit = setTimeout(() => child.kill('SIGKILL'), 15_000);
  return new Promise((resolve) =>
    child.on('close', (code, signal) => (clearTimeout(limit), resolve({ code, signal, stderr }))),
  );
}

describe('loadproof deid: the document is bounded, from a file or standard input', () => {
  it('stops reading an endless standard input at the bound: exit 2, naming it', async () => {
    const { code, signal, stderr } = await deidFrom('/dev/zero');
    expect(signal).toBeNull();
    expect(code).toBe(2);
    expect(stderr).toContain(
      `standard input: more than ${MAX_DEID_DOCUMENT_BYTES} bytes (reading stopped there); loadproof deid takes a document of at most ${MAX_DEID_DOCUMENT_CHARS} characters`,
    );
    expect(stderr).toContain('nothing was sent');
  });

  it('refuses standard input one byte over the bound, and a file over it, before sending', async () => {
    const over = 'a'.repeat(MAX_DEID_DOCUMENT_BYTES + 1);
    const piped = await runMain(['deid', '-'], {}, over);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain(`standard input: more than ${MAX_DEID_DOCUMENT_BYTES} bytes`);
    const { dir } = scenarioWorkspace('unused: true\n');
    const file = join(dir, 'big.txt');
    writeFileSync(file, over);
    const read = await runMain(['deid', file]);
    expect(read.code).toBe(2);
    expect(read.stderr).toContain(
      `${file}: ${MAX_DEID_DOCUMENT_BYTES + 1} bytes; loadproof deid takes a document of at most ${MAX_DEID_DOCUMENT_CHARS} characters`,
    );
    // Within the bytes but over the characters (one byte each): refused by characters.
    const chars = await runMain(['deid', '-'], {}, 'a'.repeat(MAX_DEID_DOCUMENT_CHARS + 1));
    expect(chars.code).toBe(2);
    expect(chars.stderr).toContain(`standard input: the document has ${MAX_DEID_DOCUMENT_CHARS + 1} characters`);
  });
});
