/**
 * Where a trend may be written: a folder of its own. A run folder is evidence (its manifest lists every file, and a
 * file added to it fails `loadproof verify`), so --out is refused when it is a run folder, lies inside one, or holds
 * one of the runs read (a folder of runs is not the trend's to write into).
 */
import { existsSync } from 'node:fs';
import { mkdir, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';

import { echoValue, UsageError } from '../core/index.js';

/** The files that make a folder a run folder. */
const RUN_FILES = ['manifest.json', 'run.json', 'summary.json'];

/** `path` with links resolved, also where its end does not exist yet (resolved up to its nearest existing folder). */
async function realOrPlanned(path: string): Promise<string> {
  const absolute = resolve(path);
  const real = await realpath(absolute).catch(() => undefined);
  if (real !== undefined) return real;
  const parent = dirname(absolute);
  return parent === absolute ? absolute : join(await realOrPlanned(parent), basename(absolute));
}

/** `inner` is `outer` or lies inside it. */
const within = (inner: string, outer: string): boolean => {
  const rel = relative(outer, inner);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/** The run folder `out` is, or lies inside, found up its path; or undefined. */
function runFolderAbove(out: string): string | undefined {
  for (let dir = out; ; dir = dirname(dir)) {
    if (RUN_FILES.some((f) => existsSync(join(dir, f)))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function refuse(out: string, why: string): never {
  throw new UsageError(
    `--out ${echoValue(out)}: ${why}; expected a folder of its own for the trend`,
    'a run folder is evidence (a file added to it fails loadproof verify); nothing was written',
  );
}

/** `out`, checked against the run folders read and made; a UsageError (exit 2) where it would write into a run. */
export async function checkedOut(out: string, runDirs: readonly string[]): Promise<void> {
  const target = await realOrPlanned(out);
  const above = runFolderAbove(target);
  if (above !== undefined) refuse(out, `inside the run folder ${echoValue(above)}`);
  for (const dir of runDirs) {
    const run = await realOrPlanned(dir);
    if (within(target, run)) refuse(out, `inside the run folder ${echoValue(dir)}`);
    if (within(run, target)) refuse(out, `holds the run folder ${echoValue(dir)}`);
  }
  await mkdir(out, { recursive: true }).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`--out ${echoValue(out)}: cannot make it (${error.code ?? error.message})`);
  });
}
