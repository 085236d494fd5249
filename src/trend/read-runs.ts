/**
 * The runs a trend is drawn from: each folder named is a run folder, or a folder of run folders (`reports/`). Each
 * summary.json is read as the run-folder readers read any file of a run folder (core checkRunFolder, readRegular:
 * nothing followed out of it, only regular files, bounded), then checked (summary-schema.ts). A folder that is not a
 * usable run is skipped with a one-line reason; the same run reached twice (`reports/latest` beside `reports/`) once.
 */
import type { Dirent } from 'node:fs';
import { lstat, readdir, realpath } from 'node:fs/promises';
import { basename, join } from 'node:path';

import { checkRunFolder, LoadproofError, readRegular } from '../core/index.js';
import { firstIssue, type TrendSummary, trendSummary } from './summary-schema.js';

/**
 * What a summary.json may weigh here: a long run's is a few MB (its timeline grows with the run), far below this; a
 * file this large was not written by loadproof.
 */
const MAX_SUMMARY_BYTES = 16 * 1024 * 1024;

export interface TrendRun {
  /** The folder as named (a folder of runs joined with the run's own name). */
  readonly dir: string;
  /** The folder's real path: what tells one run from another (two runs may share a start and a plan). */
  readonly realDir?: string;
  readonly summary: TrendSummary;
}

export interface SkippedFolder {
  readonly dir: string;
  readonly reason: string;
}

interface ReadRuns {
  readonly runs: readonly TrendRun[];
  readonly skipped: readonly SkippedFolder[];
}

/** A message on one line: a reason is printed as one. */
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** One run folder's summary, checked; or why it cannot be used. */
export async function readRun(dir: string): Promise<TrendRun | SkippedFolder> {
  try {
    await checkRunFolder(dir);
    const text = await readRegular(join(dir, 'summary.json'), MAX_SUMMARY_BYTES);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { dir, reason: 'summary.json: not JSON' };
    }
    const parsed = trendSummary.safeParse(value);
    if (!parsed.success) return { dir, reason: `summary.json: ${firstIssue(parsed.error)}` };
    return { dir, realDir: await realpath(dir).catch(() => dir), summary: parsed.data };
  } catch (error) {
    if (!(error instanceof LoadproofError)) throw error;
    return {
      dir,
      reason: oneLine(
        error.message.replace(`${dir}: `, '').replace(`${join(dir, 'summary.json')}: `, 'summary.json: '),
      ),
    };
  }
}

const holdsRun = (entries: readonly Dirent[]): boolean =>
  entries.some((e) => e.name === 'summary.json' || e.name === 'run.json');

/** The run folders inside a folder of runs: its sub-folders, links left out (`latest` names a run already there). */
function runsInside(dir: string, entries: readonly Dirent[]): { runs: string[]; skipped: SkippedFolder[] } {
  const runs: string[] = [];
  const skipped: SkippedFolder[] = [];
  for (const entry of [...entries].sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) runs.push(path);
    else if (entry.isSymbolicLink() && entry.name !== 'latest')
      skipped.push({ dir: path, reason: 'a symbolic link: not followed (name the folder it points to)' });
  }
  return { runs, skipped };
}

/** The run folders named, directly or as a folder of runs; a folder that cannot be listed is skipped. */
async function runFolders(dirs: readonly string[]): Promise<{ runs: string[]; skipped: SkippedFolder[] }> {
  const runs: string[] = [];
  const skipped: SkippedFolder[] = [];
  for (const dir of dirs) {
    const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      skipped.push({ dir, reason: `cannot list it (${error.code ?? error.message})` });
      return undefined;
    });
    if (entries === undefined) continue;
    if (holdsRun(entries)) {
      runs.push(dir);
      continue;
    }
    const inside = runsInside(dir, entries);
    if (inside.runs.length === 0 && inside.skipped.length === 0)
      skipped.push({ dir, reason: 'neither a run folder (no summary.json) nor a folder of run folders' });
    runs.push(...inside.runs);
    skipped.push(...inside.skipped);
  }
  return { runs, skipped };
}

/** Every usable run among the folders named, each once, in the order found; the others with their reasons. */
export async function readRuns(dirs: readonly string[]): Promise<ReadRuns> {
  const found = await runFolders(dirs);
  const runs: TrendRun[] = [];
  const skipped = [...found.skipped];
  const seen = new Set<string>();
  for (const dir of found.runs) {
    const real = await realpath(dir).catch(() => dir);
    if (seen.has(real)) continue;
    seen.add(real);
    if (!(await lstat(join(dir, 'summary.json')).catch(() => undefined))) {
      skipped.push({
        dir,
        reason: `no summary.json (not a run folder, or a run that never finished: loadproof report ${basename(dir)} writes it)`,
      });
      continue;
    }
    const read = await readRun(dir);
    if ('summary' in read) runs.push(read);
    else skipped.push(read);
  }
  return { runs, skipped };
}
