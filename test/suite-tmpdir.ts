/**
 * Vitest's global setup: the suite's temporary files go in one folder of their own (TMPDIR, which os.tmpdir(), the
 * test workers and every child they start read), removed when the suite ends. Tests make thousands of workspaces
 * and run folders; left in the shared /tmp they filled it (30,000 folders, 13 GB). LOADPROOF_KEEP_TEST_TMP=1 keeps
 * the folder, to read what a failing test wrote.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'loadproof-suite-'));
  process.env.TMPDIR = dir;
  return () => {
    if (process.env.LOADPROOF_KEEP_TEST_TMP === '1') {
      process.stderr.write(`loadproof: the suite's temporary files are kept in ${dir}\n`);
      return;
    }
    rmSync(dir, { recursive: true, force: true });
  };
}
