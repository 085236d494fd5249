/**
 * Reading a run folder with bounds, for every command that reads one (report, verify, compare, merge).
 * A run folder is evidence, and often someone else's (a shard on a shared volume, a folder attached to a
 * ticket): nothing in it is followed out of it, nothing but a regular file is read, and every read is
 * bounded. The folder's own path may be a link (`reports/latest`): the user named it.
 */
import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { UsageError } from './errors.js';

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

const FOLDER_HINT =
  'a run folder holds only regular files (and charts/, a folder): loadproof never follows a link out of it, nor reads a FIFO or a device; nothing was read or written';

/**
 * Refuses a run folder holding, at its top or in its RUN_SUBFOLDERS, anything but regular files and
 * folders (a link, a FIFO, a device), and a RUN_SUBFOLDER that is not a folder. Exit 2, naming the path.
 */
export async function checkRunFolder(dir: string): Promise<void> {
  const top = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(
      `${dir}: not a run folder (cannot list it: ${error.code ?? error.message})`,
      'give the folder a run wrote (reports/<time>-<scenario>)',
    );
  });
  for (const entry of top) {
    const path = join(dir, entry.name);
    if ((RUN_SUBFOLDERS as readonly string[]).includes(entry.name)) {
      if (!entry.isDirectory())
        throw new UsageError(
          `${path}: ${entry.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}, expected the run's own ${entry.name}/ folder`,
          FOLDER_HINT,
        );
      for (const inner of await readdir(path, { withFileTypes: true })) {
        if (!inner.isFile())
          throw new UsageError(
            `${join(path, inner.name)}: ${inner.isDirectory() ? 'a folder' : kindOf(await lstat(join(path, inner.name)))}, expected a regular file`,
            FOLDER_HINT,
          );
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
export async function openRegular(
  path: string,
  maxBytes: number,
): Promise<{ readonly handle: FileHandle; readonly size: number }> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ELOOP')
        throw new UsageError(`${path}: a symbolic link, expected a regular file`, FOLDER_HINT);
      throw new UsageError(`${path}: cannot read it (${error.code ?? error.message})`);
    },
  );
  try {
    const s = await handle.stat();
    if (!s.isFile()) throw new UsageError(`${path}: ${kindOf(s)}, expected a regular file`, FOLDER_HINT);
    if (s.size > maxBytes)
      throw new UsageError(
        `${path}: ${s.size} bytes, expected at most ${maxBytes}`,
        'a file of a run folder this large was not written by loadproof; nothing was written',
      );
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
      if (length === buffer.length)
        throw new UsageError(`${path}: grew past ${maxBytes} bytes while read`, 'nothing was written');
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

interface LineBounds {
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
export async function* readLines(
  path: string,
  bounds: LineBounds,
): AsyncGenerator<{ readonly line: string; readonly number: number }> {
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
      if (total > bounds.maxBytes)
        throw new UsageError(`${path}: more than ${bounds.maxBytes} bytes (it grew while read)`, 'nothing was written');
      let start = 0;
      for (;;) {
        const newline = chunk.indexOf(10, start);
        const end = newline === -1 || newline >= bytesRead ? bytesRead : newline;
        pendingBytes += end - start;
        if (pendingBytes > bounds.maxLineBytes)
          throw new UsageError(
            `${path} line ${number + 1}: longer than ${bounds.maxLineBytes} bytes`,
            'no line loadproof writes is this long: the file was changed after the run; nothing was written',
          );
        if (end === bytesRead) {
          // The rest of the chunk: kept (copied, the chunk is reused) until its newline comes.
          pending.push(Buffer.from(chunk.subarray(start, end)));
          break;
        }
        number++;
        // A line within one chunk (nearly all of them) is decoded in place.
        const line =
          pending.length === 0
            ? chunk.toString('utf8', start, end)
            : Buffer.concat([...pending, chunk.subarray(start, end)]).toString('utf8');
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
