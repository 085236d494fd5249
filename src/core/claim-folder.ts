/**
 * Claiming a folder for a command's files: a command writes only into a folder it made (or one that was
 * empty), and two commands never share one. Releasing a claim removes only what this command made.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm, rmdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

import { UsageError } from './errors.js';
import { readRegular } from './read-bounded.js';
import { writeNewFile } from './write-whole-files.js';

/**
 * The file that marks a folder as claimed by a command (made exclusively, inside it): a second command
 * claiming the same folder is refused at once. Removed before the folder is finished (never in a manifest).
 */
export const CLAIM_MARKER = '.loadproof-claim';

/** A folder claimed by {@link claimEmptyFolder}: `made` when it was made here; `token`, what its marker holds. */
export interface FolderClaim {
  readonly made: boolean;
  /** null: a folder made under a unique new name (makeRunFolder), with no marker. */
  readonly token: string | null;
}

const notEmpty = (flag: string, dir: string, entries: string[]): UsageError => {
  const shown = entries.sort().slice(0, 5).join(', ');
  return new UsageError(
    `${flag} ${dir}: the folder is not empty (it holds ${shown}${entries.length > 5 ? ', …' : ''})`,
    'nothing was sent or written; loadproof writes only into a folder it makes or an empty one, so that no file of yours and no evidence is overwritten: choose a new folder',
  );
};

async function inUse(flag: string, dir: string): Promise<UsageError> {
  const marker = join(dir, CLAIM_MARKER);
  const holder = await readRegular(marker, 4096)
    .then(
      (text) => {
        const h = JSON.parse(text) as { command?: unknown; pid?: unknown; host?: unknown; since?: unknown };
        return ` (loadproof ${String(h.command)}, pid ${String(h.pid)} on ${String(h.host)}, since ${String(h.since)})`;
      },
      () => '',
    )
    .catch(() => '');
  return new UsageError(
    `${flag} ${dir}: in use by another command${holder}: ${marker} claims it`,
    `nothing was sent or written, and nothing of that command's touched; two commands never share a folder: choose a new one. If no loadproof command is using it (one was killed, or its machine stopped), the marker was left behind: look at the folder, then remove ${CLAIM_MARKER} (and any files of the dead command) or choose a new folder`,
  );
}

/**
 * Claims `dir` for a command's files: makes it (its parent must exist), or takes it if it is an empty
 * folder (made by the user for this run), and marks it claimed ({@link CLAIM_MARKER}, made exclusively):
 * of two commands claiming one folder, one wins and the other is refused at once (exit 2, "in use"). A
 * folder with anything in it is refused (exit 2): a command writes only into a folder it made, so nothing
 * of the user's, nor any evidence, is overwritten. `command`: named in the marker, for the error of another.
 */
export async function claimEmptyFolder(dir: string, flag: string, command = 'run'): Promise<FolderClaim> {
  let made = false;
  try {
    await mkdir(dir);
    made = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if (!made) {
    // A link to an empty folder is the user's own path to it; anything else in the way is refused.
    const entries = await readdir(dir).catch(() => undefined);
    if (entries === undefined)
      throw new UsageError(
        `${flag} ${dir}: a file is in the way (not a folder)`,
        'nothing was sent or written; choose a new folder',
      );
    if (entries.includes(CLAIM_MARKER)) throw await inUse(flag, dir);
    if (entries.length > 0) throw notEmpty(flag, dir, entries);
  }
  const token = randomUUID();
  const marker = join(dir, CLAIM_MARKER);
  try {
    await writeNewFile(
      marker,
      `${JSON.stringify({ token, command, pid: process.pid, host: hostname(), since: new Date().toISOString() })}\n`,
      0o644,
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw await inUse(flag, dir);
    throw error;
  }
  // Looked at again, ours now: a command that claimed it before our first look may have filled it and dropped its claim
  // since.
  const others = (await readdir(dir)).filter((name) => name !== CLAIM_MARKER);
  if (others.length > 0) {
    await rm(marker, { force: true });
    throw notEmpty(flag, dir, others);
  }
  return { made, token };
}

/** Removes the claim marker of `dir` if it is still this claim's (another's is left alone). */
export async function dropClaim(dir: string, claim: FolderClaim): Promise<void> {
  if (claim.token === null) return;
  const marker = join(dir, CLAIM_MARKER);
  const text = await readRegular(marker, 4096).catch(() => '');
  if (text.includes(claim.token)) await rm(marker, { force: true });
}

/**
 * Undoes {@link claimEmptyFolder}: removes the entries this command made (`created`, names in `dir`), its
 * claim, and the folder if it was made here and is empty then. Nothing else: never another command's files.
 */
export async function releaseFolder(dir: string, claim: FolderClaim, created: readonly string[]): Promise<void> {
  for (const name of created) await rm(join(dir, name), { recursive: true, force: true }).catch(() => {});
  await dropClaim(dir, claim);
  if (claim.made) await rmdir(dir).catch(() => {});
}
