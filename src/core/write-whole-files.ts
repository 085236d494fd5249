/**
 * The one writer of whole files: every file a command writes whole goes through here, made exclusively and
 * never through a link, and masked (no secret, in any form: src/core/redact.ts). The run's streamed events
 * are the other writer (src/run-folder/write.ts).
 */
import { constants } from 'node:fs';
import { lstat, open, rename, rm, writeFile } from 'node:fs/promises';

import { redactWritten } from './redact.js';

/**
 * Writes a whole file under a temporary name (`<path>.partial`, made exclusively, never through a link)
 * and renames it into place: a crash mid-write never leaves half of it, and a link in the way is
 * replaced, not followed. `text` may come in pieces, written in order, each masked (no secret, in any
 * form: src/core/redact.ts). Throws on failure.
 */
async function writeFileAtomically(path: string, text: string | Buffer | Iterable<string>): Promise<void> {
  const partial = `${path}.partial`;
  // A stale one (a crash) is removed, not opened: `rm` removes a link, never what it points at.
  await rm(partial, { force: true });
  try {
    const file = await open(
      partial,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o644,
    );
    try {
      // Piece by piece: a long run's summary is never one string in memory.
      if (Buffer.isBuffer(text)) await file.write(text);
      else for (const piece of typeof text === 'string' ? [text] : text) await file.write(redactWritten(piece));
      // On the disk before it takes the name: a crash after the rename never leaves an empty file.
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true }).catch(() => {});
    throw error;
  }
}

/** Removes a file of a run folder if it is a regular file (a link, or anything else, is left alone). */
export async function removeRegular(path: string): Promise<void> {
  const s = await lstat(path).catch(() => undefined);
  if (s?.isFile() === true) await rm(path, { force: true });
}

/**
 * Puts a folder built aside (a hidden sibling) in place of the empty folder claimed for it, in one
 * rename, so the folder appears whole or not at all (merge).
 */
export async function publishFolder(built: string, claimed: string): Promise<void> {
  await rename(built, claimed);
}

/** Why a file operation failed, in words a user acts on. */
export function whyNot(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const meaning: Partial<Record<string, string>> = {
    ENOTDIR: 'a file is in the way (not a folder)',
    EEXIST: 'a file is in the way (not a folder)',
    EACCES: 'permission denied',
    EPERM: 'not permitted',
    EROFS: 'the file system is read-only',
    ENOENT: 'a parent folder cannot be made there',
    ENOSPC: 'no space left on the device',
    ELOOP: 'a symbolic link is in the way',
    EISDIR: 'a folder is in the way',
    ERR_FS_EISDIR: 'a folder is in the way',
  };
  return `${code ?? 'error'}: ${(code !== undefined ? meaning[code] : undefined) ?? (error as Error).message}`;
}

/** What became of one output file. */
export interface FileResult {
  readonly file: string;
  /** Why it could not be written (fully), or null. */
  readonly error: string | null;
}

/**
 * Writes a whole file under a temporary name, then renames it into place, so a crash mid-write never
 * leaves half of it (run.json, rewritten at the end of a run, must stay readable), and never through a
 * link; a failure is returned. `text` may come in pieces, written in order.
 */
export async function writeAtomically(path: string, text: string | Buffer | Iterable<string>): Promise<FileResult> {
  try {
    await writeFileAtomically(path, text);
    return { file: path, error: null };
  } catch (error) {
    return { file: path, error: whyNot(error) };
  }
}

/** Writes a whole file; a failure is returned, not thrown, so the caller can still report the rest. */
export async function writeWhole(path: string, text: string): Promise<FileResult> {
  try {
    await writeNewFile(path, text);
    return { file: path, error: null };
  } catch (error) {
    return { file: path, error: whyNot(error) };
  }
}

/**
 * Writes a new file of a folder made for it (or a claim marker, whose exclusive making is the claim):
 * never through a link, never over a file (EEXIST). Throws on failure.
 */
export async function writeNewFile(path: string, text: string, mode = 0o666): Promise<void> {
  await writeFile(path, redactWritten(text), {
    flag: constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    mode,
  });
}
