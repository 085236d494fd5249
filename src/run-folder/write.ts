/**
 * The run's folder and files. The folder is made before anything is sent (a bad --out is a usage
 * error, exit 2, with nothing sent), never shared with another run (made atomically, with a suffix
 * when the name is taken), and a failed write loses only what it failed to write: the run keeps
 * measuring, says which file failed and why, and exits 4.
 * This is the one writer of files: every text written passes through redactWritten (no secret, in any form).
 */
import { constants, createWriteStream, open as fsOpen, type WriteStream } from 'node:fs';
import { lstat, mkdir, rename, rm, stat, symlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

import {
  claimEmptyFolder,
  dropClaim as dropFolderClaim,
  type FileResult,
  type FolderClaim,
  redactWritten,
  releaseFolder,
  UsageError,
  whyNot,
} from '../core/index.js';

/** 20261121T040612Z */
const stamp = (d: Date): string =>
  d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');

/** How a folder could not be used, in words. */

/**
 * mkdir -p, bounded by the path's depth. Node's own `recursive: true` loops for ever (at 100 % CPU)
 * on some paths, such as a new folder under /proc.
 */
async function makeFolders(path: string): Promise<void> {
  const full = resolve(path);
  try {
    await mkdir(full);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      if (!(await stat(full)).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
      return;
    }
    const parent = dirname(full);
    if (code !== 'ENOENT' || parent === full) throw error;
    await makeFolders(parent);
    await mkdir(full);
  }
}

/** Makes `<outDir>/<UTC time>-<name>[-n]/`: a new folder, even when two runs start in the same second. */
export async function makeRunFolder(outDir: string, name: string, startedAt: Date): Promise<string> {
  try {
    await makeFolders(outDir);
  } catch (error) {
    throw new UsageError(
      `--out ${outDir}: cannot make the folder (${whyNot(error)})`,
      'nothing was sent; choose another --out',
    );
  }
  const base = join(outDir, `${stamp(startedAt)}-${name}`);
  for (let n = 1; n <= 1000; n++) {
    const dir = n === 1 ? base : `${base}-${n}`;
    try {
      // Not recursive: mkdir fails if the folder exists, so two runs never share one.
      await mkdir(dir);
      return dir;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new UsageError(
          `--out ${outDir}: cannot make the run folder ${dir} (${whyNot(error)})`,
          'nothing was sent',
        );
    }
  }
  throw new UsageError(`--out ${outDir}: 1,000 runs of ${name} already started in this second`, 'nothing was sent');
}

/**
 * Points `<outDir>/latest` at a run folder made under it (a relative link, replaced atomically: a reader
 * never finds it missing), so that CI and people find the newest run without knowing its time. Returns
 * why not, when it could not: a convenience, never a reason to fail a run. A `latest` that is not a link
 * (someone's own folder or file) is left alone.
 */
export async function pointLatestAt(outDir: string, runDir: string): Promise<string | null> {
  const latest = join(outDir, 'latest');
  const existing = await lstat(latest).catch(() => undefined);
  if (existing !== undefined && !existing.isSymbolicLink()) return `${latest} exists and is not a link; left as it is`;
  const temporary = join(outDir, `.latest-${process.pid}-${Date.now()}`);
  try {
    await symlink(basename(runDir), temporary, 'dir');
    await rename(temporary, latest);
    return null;
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => {});
    return `${latest} could not be pointed at ${basename(runDir)} (${whyNot(error)})`;
  }
}

/**
 * --run-dir: the exact folder for this run's files, made if missing, or taken if empty. A folder with
 * anything in it is refused (exit 2, before anything is sent): a run writes only into a folder it made
 * or an empty one, so no measurement and no file of the user's is ever overwritten. `made`: whether it
 * was made here (see {@link releaseRunFolder}).
 */
export async function claimRunFolder(
  dir: string,
  flag = '--run-dir',
  command = 'run',
): Promise<{ readonly dir: string } & FolderClaim> {
  try {
    await makeFolders(dirname(resolve(dir)));
    return { dir, ...(await claimEmptyFolder(dir, flag, command)) };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${flag} ${dir}: cannot make the folder (${whyNot(error)})`, 'nothing was sent');
  }
}

/**
 * {@link claimRunFolder}, for a caller that leaves the folder in place whatever happens (its claim dropped at once).
 */
export async function useRunFolder(dir: string): Promise<string> {
  const claimed = await claimRunFolder(dir);
  await dropClaim(claimed);
  return claimed.dir;
}

/**
 * Drops a run folder's claim: once its command has written into it (a folder with files is refused anyway), before its
 * manifest.
 */
export async function dropClaim(claimed: { readonly dir: string } & FolderClaim): Promise<void> {
  await dropFolderClaim(claimed.dir, claimed);
}

/**
 * Undoes {@link claimRunFolder} when nothing was measured: the entries made (`created`), the claim, the folder if made
 * here.
 */
export async function releaseRunFolder(
  claimed: { readonly dir: string } & FolderClaim,
  created: readonly string[],
): Promise<void> {
  await releaseFolder(claimed.dir, claimed, created);
}

/** Removes a run folder that a run left before sending anything (it holds no measurement). */
export async function removeRunFolder(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true }).catch(() => {});
}

/**
 * events.ndjson, appended as requests complete. A write error (a full disk) does not stop the run:
 * the file is closed, the lines after it are counted as lost, and the error is reported at the end.
 */
/**
 * How long a line of events.ndjson may wait to be written with the lines after it (wall ms). One write
 * per line cost more CPU than the request it records at 1,000 requests/s, and each write
 * wakes the event loop again when the file system says it is done: at 50 ms, 20 writes a second at most.
 * A crash loses about this much of the file, plus writes not yet done. A line after a quiet spell (none in
 * the interval before it) is written at the end of the event loop's turn instead: between sparse arrivals
 * a timer of its own would wake an idle process once more per request.
 */
export const EVENT_FLUSH_MS = 50;
/** The lines of one flush at 1,000 requests/s fit one chunk. */
const EVENT_CHUNK_BYTES = 64 * 1024;

export class EventLog {
  private failure: string | undefined;
  private lost = 0;
  /**
   * The bytes of the lines not yet written, encoded as each comes: a line is garbage at once instead of surviving
   * the young generation's collections until the flush (at 5,000 requests/s, 250 lines each time). One chunk, reused;
   * a burst that fills it goes on in a new one (the full ones wait in `full`). A flush is scheduled whenever a line
   * waits.
   */
  private chunk = Buffer.allocUnsafeSlow(EVENT_CHUNK_BYTES);
  private used = 0;
  private full: Buffer[] = [];
  private waiting = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  private lastLineAt = -Infinity;

  private constructor(
    readonly path: string,
    private readonly stream: WriteStream,
    private readonly now: () => number,
  ) {
    stream.on('error', (error) => {
      this.failure ??= whyNot(error);
    });
  }

  /**
   * Creates the file, exclusively and never through a link: a second run writing into the same folder
   * is refused instead of truncating the first one's events. Failing to open it is a usage error, before
   * anything is sent.
   */
  static async open(path: string, now: () => number = () => performance.now()): Promise<EventLog> {
    let fd: number;
    try {
      fd = await new Promise<number>((resolve, reject) =>
        fsOpen(
          path,
          constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
          0o644,
          (error, opened) => (error ? reject(error) : resolve(opened)),
        ),
      );
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new UsageError(
        code === 'EEXIST'
          ? `${path} already exists: another run is writing it`
          : `cannot write ${path} (${whyNot(error)})`,
        'nothing was sent',
      );
    }
    const stream = createWriteStream(path, { fd });
    return new EventLog(path, stream, now);
  }

  /** Queues a line; lines are written together, within {@link EVENT_FLUSH_MS}, in the order given. */
  write(line: string): void {
    if (this.failure !== undefined || this.stream.destroyed) this.lost++;
    else {
      const now = this.now();
      this.append(redactWritten(line));
      if (++this.waiting === 1) {
        if (now - this.lastLineAt >= EVENT_FLUSH_MS) setImmediate(this.flush);
        else this.flushTimer = setTimeout(this.flush, EVENT_FLUSH_MS);
      }
      this.lastLineAt = now;
    }
  }

  private readonly flush = (): void => {
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const lines = this.waiting;
    if (lines === 0) return;
    // A copy: the stream holds what it was given until it is written, and the chunk takes the next lines.
    const bytes = Buffer.concat([...this.full, this.chunk.subarray(0, this.used)]);
    this.used = 0;
    this.full = [];
    this.waiting = 0;
    if (this.failure !== undefined || this.stream.destroyed) this.lost += lines;
    else this.stream.write(bytes);
  };

  /** Encodes `text` after the lines waiting (UTF-8, as the stream would). */
  private append(text: string): void {
    // 3 bytes per UTF-16 unit at most.
    if (this.chunk.length - this.used < text.length * 3) {
      if (this.used > 0) this.full.push(this.chunk.subarray(0, this.used));
      this.chunk = Buffer.allocUnsafeSlow(Math.max(EVENT_CHUNK_BYTES, text.length * 3));
      this.used = 0;
    }
    this.used += this.chunk.write(text, this.used);
  }

  /** Flushes and closes; says whether every line reached the file. */
  async close(): Promise<FileResult> {
    this.flush();
    // 'close' comes last, after 'finish' or after 'error': by then a write error has been seen.
    await new Promise<void>((resolve) => {
      if (this.stream.closed) resolve();
      else {
        this.stream.once('close', () => resolve());
        this.stream.end();
      }
    });
    const error =
      this.failure === undefined
        ? null
        : `${this.failure}${this.lost > 0 ? `; at least ${this.lost} later lines not written` : ''}`;
    return { file: this.path, error };
  }
}
