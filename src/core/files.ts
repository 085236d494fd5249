/**
 * Safe I/O inside a run folder, for every command that reads or writes one (run, report, verify,
 * compare, merge, probe). A run folder is evidence, and often someone else's (a shard on a shared
 * volume, a folder attached to a ticket): nothing in it is followed out of it, nothing but a regular
 * file is read, every read is bounded, and a command writes only into a folder it made (or one that
 * was empty). The folder's own path may be a link (`reports/latest`): the user named it.
 */
import { constants, type Stats } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { type FileHandle, lstat, mkdir, open, readdir, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { UsageError } from './errors.js';
import { redactWritten } from './redact.js';

/** The sub-folders of a run folder that hold its files; nothing else is walked into. */
export const RUN_SUBFOLDERS = ['charts'] as const;

/** What a JSON file of a run folder (run.json, manifest.json, comparison.json, summary.json) may weigh. */
export const MAX_JSON_BYTES = 64 * 1024 * 1024;

/** What an entry is, in words, when it is not a regular file or folder. */
function kindOf(s: Stats): string {
  if (s.isSymbolicLink()) return 'a symbolic link';
  if (s.isFIFO()) return 'a FIFO';
  if (s.isSocket()) return 'a socket';
  if (s.isCharacterDevice() || s.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

const FOLDER_HINT = 'a run folder holds only regular files (and charts/, a folder): loadproof never follows a link out of it, nor reads a FIFO or a device; nothing was read or written';

/**
 * Refuses a run folder holding, at its top or in its RUN_SUBFOLDERS, anything but regular files and
 * folders (a link, a FIFO, a device), and a RUN_SUBFOLDER that is not a folder. Exit 2, naming the path.
 */
export async function checkRunFolder(dir: string): Promise<void> {
  const top = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`${dir}: not a run folder (cannot list it: ${error.code ?? error.message})`, 'give the folder a run wrote (reports/<time>-<scenario>)');
  });
  for (const entry of top) {
    const path = join(dir, entry.name);
    if ((RUN_SUBFOLDERS as readonly string[]).includes(entry.name)) {
      if (!entry.isDirectory()) throw new UsageError(`${path}: ${entry.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}, expected the run's own ${entry.name}/ folder`, FOLDER_HINT);
      for (const inner of await readdir(path, { withFileTypes: true })) {
        if (!inner.isFile()) throw new UsageError(`${join(path, inner.name)}: ${inner.isDirectory() ? 'a folder' : kindOf(await lstat(join(path, inner.name)))}, expected a regular file`, FOLDER_HINT);
      }
    } else if (!entry.isFile() && !entry.isDirectory()) {
      throw new UsageError(`${path}: ${kindOf(await lstat(path))}, expected a regular file`, FOLDER_HINT);
    }
  }
}

/**
 * Opens a regular file for reading without following a link and without blocking on a FIFO, and refuses
 * anything else, or a file over `maxBytes`, with exit 2 naming it. The caller closes the handle.
 */
export async function openRegular(path: string, maxBytes: number): Promise<{ readonly handle: FileHandle; readonly size: number }> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ELOOP') throw new UsageError(`${path}: a symbolic link, expected a regular file`, FOLDER_HINT);
    throw new UsageError(`${path}: cannot read it (${error.code ?? error.message})`);
  });
  try {
    const s = await handle.stat();
    if (!s.isFile()) throw new UsageError(`${path}: ${kindOf(s)}, expected a regular file`, FOLDER_HINT);
    if (s.size > maxBytes) throw new UsageError(`${path}: ${s.size} bytes, expected at most ${maxBytes}`, 'a file of a run folder this large was not written by loadproof; nothing was written');
    return { handle, size: s.size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** A regular file's text, at most `maxBytes` (read one byte past it, whatever its size said). */
export async function readRegular(path: string, maxBytes: number = MAX_JSON_BYTES): Promise<string> {
  const { handle, size } = await openRegular(path, maxBytes);
  try {
    const buffer = Buffer.alloc(Math.min(size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) throw new UsageError(`${path}: grew past ${maxBytes} bytes while read`, 'nothing was written');
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > maxBytes) throw new UsageError(`${path}: more than ${maxBytes} bytes`, 'nothing was written');
    }
    return buffer.toString('utf8', 0, length);
  } finally {
    await handle.close();
  }
}

export interface LineBounds {
  /** The longest line, in bytes (its newline not counted). */
  readonly maxLineBytes: number;
  /** The whole file, in bytes. */
  readonly maxBytes: number;
}

/**
 * The lines of a regular file (without their newline; a last line without one too), each with its
 * 1-based number, read in chunks: memory is bounded by the longest line allowed, time by the file's
 * bound. A longer line or file is refused (exit 2) naming the file and the line.
 */
export async function* readLines(path: string, bounds: LineBounds): AsyncGenerator<{ readonly line: string; readonly number: number }> {
  const { handle } = await openRegular(path, bounds.maxBytes);
  try {
    const chunk = Buffer.alloc(64 * 1024);
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let number = 0;
    let total = 0;
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > bounds.maxBytes) throw new UsageError(`${path}: more than ${bounds.maxBytes} bytes (it grew while read)`, 'nothing was written');
      let start = 0;
      for (;;) {
        const newline = chunk.indexOf(10, start);
        const end = newline === -1 || newline >= bytesRead ? bytesRead : newline;
        pendingBytes += end - start;
        if (pendingBytes > bounds.maxLineBytes) throw new UsageError(`${path} line ${number + 1}: longer than ${bounds.maxLineBytes} bytes`, 'no line loadproof writes is this long: the file was changed after the run; nothing was written');
        if (end === bytesRead) {
          // The rest of the chunk: kept (copied, the chunk is reused) until its newline comes.
          pending.push(Buffer.from(chunk.subarray(start, end)));
          break;
        }
        number++;
        // A line within one chunk (nearly all of them) is decoded in place.
        const line = pending.length === 0 ? chunk.toString('utf8', start, end) : Buffer.concat([...pending, chunk.subarray(start, end)]).toString('utf8');
        yield { line, number };
        pending = [];
        pendingBytes = 0;
        start = end + 1;
      }
    }
    if (pendingBytes > 0) yield { line: Buffer.concat(pending).toString('utf8'), number: number + 1 };
  } finally {
    await handle.close();
  }
}

/**
 * Writes a whole file under a temporary name (`<path>.partial`, made exclusively, never through a link)
 * and renames it into place: a crash mid-write never leaves half of it, and a link in the way is
 * replaced, not followed. `text` may come in pieces, written in order, each masked (no secret, in any
 * form: src/core/redact.ts). Throws on failure.
 */
export async function writeFileAtomically(path: string, text: string | Buffer | Iterable<string>): Promise<void> {
  const partial = `${path}.partial`;
  // A stale one (a crash) is removed, not opened: `rm` removes a link, never what it points at.
  await rm(partial, { force: true });
  try {
    const file = await open(partial, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
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
  const holder = await readRegular(marker, 4096).then(
    (text) => {
      const h = JSON.parse(text) as { command?: unknown; pid?: unknown; host?: unknown; since?: unknown };
      return ` (loadproof ${String(h.command)}, pid ${String(h.pid)} on ${String(h.host)}, since ${String(h.since)})`;
    },
    () => '',
  ).catch(() => '');
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
    if (entries === undefined) throw new UsageError(`${flag} ${dir}: a file is in the way (not a folder)`, 'nothing was sent or written; choose a new folder');
    if (entries.includes(CLAIM_MARKER)) throw await inUse(flag, dir);
    if (entries.length > 0) throw notEmpty(flag, dir, entries);
  }
  const token = randomUUID();
  const marker = join(dir, CLAIM_MARKER);
  try {
    const file = await open(marker, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    try {
      await file.write(`${JSON.stringify({ token, command, pid: process.pid, host: hostname(), since: new Date().toISOString() })}\n`);
    } finally {
      await file.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw await inUse(flag, dir);
    throw error;
  }
  // Looked at again, ours now: a command that claimed it before our first look may have filled it and dropped its claim since.
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
 * link (src/core/files.ts); a failure is returned. `text` may come in pieces, written in order.
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
    // A new file of a folder made for it: never through a link, never over a file.
    await writeFile(path, redactWritten(text), { flag: constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW });
    return { file: path, error: null };
  } catch (error) {
    return { file: path, error: whyNot(error) };
  }
}
