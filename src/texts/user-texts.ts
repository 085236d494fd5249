/**
 * The user's own texts, as `payload.source` names them: a folder of `.txt` files (one document each,
 * in name order) or an NDJSON file whose lines are objects with a string `text` (and, optionally, the PHI
 * it holds: `phi: [{text, kind}]`, the ground truth its recall is measured against). Read once, before
 * anything is sent; every problem is named with its file (and line), and empty texts are listed, not sent.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';

import { ScenarioError } from '../core/index.js';
import type { PlantedPhi } from '../phi/index.js';
import { lineAnnotations } from './phi-annotations.js';

export interface UserDocument {
  /** Where it came from: a file name, or `file line n`. */
  readonly name: string;
  readonly text: string;
  /** The PHI its annotation says it holds, as spans; undefined without an annotation. */
  readonly phi?: readonly PlantedPhi[] | undefined;
}

export interface UserTexts {
  /** The source as resolved (absolute path). */
  readonly path: string;
  readonly documents: readonly UserDocument[];
  /** Texts that were empty (or only whitespace): not sent. */
  readonly empty: readonly string[];
  /** Texts that are not valid UTF-8 (their bad bytes read as U+FFFD): sent as read, and said. */
  readonly notUtf8: readonly string[];
}

/** Bounds on what is read into memory: a payload is a sample of texts, not a data set. */
const USER_TEXT_BOUNDS = { files: 100_000, bytes: 256 * 1024 * 1024 } as const;

const FIELD = 'payload.source';

/** Reads `source`, relative to the scenario file's folder; throws a ScenarioError naming the field on any problem. */
export function readUserTexts(source: string, scenarioFile: string): UserTexts {
  const path = resolve(dirname(scenarioFile), source);
  const reading = startReading(scenarioFile);
  const { refuse, documents, empty, notUtf8 } = reading;
  let isFolder: boolean;
  try {
    isFolder = statSync(path).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return refuse(
      `${JSON.stringify(source)} (${path}) ${code === 'ENOENT' ? 'does not exist' : `cannot be read (${code})`}; expected "generated", a folder of .txt files or an .ndjson file`,
    );
  }
  if (isFolder) readTextFolder(path, reading);
  else if (/\.(nd)?jsonl?$/i.test(path)) readNdjsonTexts(path, scenarioFile, reading);
  else {
    refuse(
      `${JSON.stringify(source)} is a file that does not end in .ndjson or .jsonl; expected "generated", a folder of .txt files or an .ndjson file`,
    );
  }
  if (documents.length === 0)
    refuse(`every text in ${path} is empty (${empty.length}); expected at least one with text in it`);
  return { path, documents, empty, notUtf8 };
}

/** The texts read so far, and the steps every source shares: refusing, adding a text, reading a file. */
interface Reading {
  readonly documents: UserDocument[];
  readonly empty: string[];
  readonly notUtf8: string[];
  /** Throws a ScenarioError naming the field. */
  readonly refuse: (problem: string) => never;
  /** Keeps a text, or lists it as empty (not sent). */
  readonly add: (name: string, text: string, phi?: readonly PlantedPhi[]) => void;
  /** A regular file's text, its name listed when it is not valid UTF-8; refused when it cannot be read. */
  readonly readText: (full: string, name: string, followLinks?: boolean) => string;
}

/** An empty reading, whose refusals name `scenarioFile`. */
function startReading(scenarioFile: string): Reading {
  const documents: UserDocument[] = [];
  const empty: string[] = [];
  const notUtf8: string[] = [];
  const refuse = (problem: string): never => {
    throw new ScenarioError(scenarioFile, [`${FIELD}: ${problem}`]);
  };
  const add = (name: string, text: string, phi?: readonly PlantedPhi[]): void => {
    if (text.trim() === '') empty.push(name);
    else documents.push(phi === undefined ? { name, text } : { name, text, phi });
  };
  const readText = (full: string, name: string, followLinks = true): string => {
    const read = readRegularText(full, name, { followLinks });
    if ('problem' in read) return refuse(read.problem);
    if (read.notUtf8) notUtf8.push(name);
    return read.text;
  };
  return { documents, empty, notUtf8, refuse, add, readText };
}

/** A folder of .txt files: one document each, in name order, bounded in count and bytes. */
function readTextFolder(path: string, { refuse, add, readText }: Reading): void {
  let names: string[];
  try {
    names = readdirSync(path);
  } catch (error) {
    return refuse(`${path} cannot be listed (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const files = names.filter((f) => f.endsWith('.txt')).sort();
  if (files.length > USER_TEXT_BOUNDS.files)
    refuse(`${path} holds ${files.length} .txt files; expected at most ${USER_TEXT_BOUNDS.files}`);
  // The folder as the user named it may itself be a link; what is in it stays in it.
  const root = realpathSync(path);
  let bytes = 0;
  for (const file of files) {
    const inside = fileInside(root, path, file);
    if ('problem' in inside) return refuse(inside.problem);
    // Not following a link from here on: the checked file is the one read.
    const text = readText(inside.path, file, false);
    bytes += Buffer.byteLength(text);
    if (bytes > USER_TEXT_BOUNDS.bytes)
      refuse(
        `the .txt files in ${path} pass ${USER_TEXT_BOUNDS.bytes / 1024 / 1024} MiB; expected a sample at most that large`,
      );
    add(file, text);
  }
  if (files.length === 0) refuse(`${path} holds no .txt file; expected a folder of .txt files (one document each)`);
}

/** An NDJSON file: one document a line, each an object with a string `text`; every bad line is named (the first 20). */
function readNdjsonTexts(path: string, scenarioFile: string, { add, readText }: Reading): void {
  const lines = readText(path, basename(path)).split('\n');
  const problems: string[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const name = `${basename(path)} line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      problems.push(`${FIELD}: ${name}: expected a JSON object with a string "text", got text that is not JSON`);
      return;
    }
    const text = (value as { text?: unknown } | null)?.text;
    if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof text !== 'string') {
      problems.push(`${FIELD}: ${name}: expected a JSON object with a string "text", got ${describeShape(value)}`);
      return;
    }
    const phi = lineAnnotations(text, (value as { phi?: unknown }).phi, `${FIELD}: ${name}: phi`);
    if ('problems' in phi) problems.push(...phi.problems);
    else add(name, text, phi.phi);
  });
  if (problems.length > 0)
    throw new ScenarioError(
      scenarioFile,
      problems
        .slice(0, 20)
        .concat(problems.length > 20 ? [`${FIELD}: and ${problems.length - 20} more lines like these`] : []),
    );
}

/**
 * Where to read `name`, an entry of the source folder (`shown` as named, `root` its real path): the entry
 * itself, or, for a symbolic link, its target when that is a regular file inside the folder. A link out of
 * the folder (however many links it goes through), to a folder or a device, or to nothing, is refused.
 */
function fileInside(
  root: string,
  shown: string,
  name: string,
): { readonly path: string } | { readonly problem: string } {
  const full = join(root, name);
  const expected = 'a link in the source folder may point only at a regular file inside it';
  try {
    if (!lstatSync(full).isSymbolicLink()) return { path: full };
  } catch (error) {
    return {
      problem: `${join(shown, name)} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    };
  }
  let target: string;
  try {
    target = realpathSync(full);
  } catch (error) {
    return {
      problem: `${join(shown, name)} is a symbolic link to nothing (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); ${expected}`,
    };
  }
  if (!target.startsWith(root + sep))
    return {
      problem: `${join(shown, name)} is a symbolic link out of the source folder ${shown} (to ${target}): not followed; ${expected}`,
    };
  if (!lstatSync(target).isFile())
    return {
      problem: `${join(shown, name)} is a symbolic link to ${target}, which is not a regular file; ${expected}`,
    };
  return { path: target };
}

/**
 * A regular file's text: UTF-8, a leading byte-order mark dropped, `notUtf8` when bytes were not UTF-8 (read
 * as U+FFFD). A folder, a pipe or a device is refused, not read (a pipe would block, /dev/zero never end).
 * Checked on the file opened (not on its name, which could change in between); with `followLinks` false, a
 * link in its place is refused. With `maxBytes`, one larger (by its size, or by what a read finds: a file in
 * /proc says 0) is `tooLarge`, and no more than maxBytes + 1 bytes are read.
 */
type RegularText = { readonly text: string; readonly notUtf8: boolean } | { readonly problem: string };
interface ReadOptions {
  readonly followLinks?: boolean;
  readonly maxBytes?: number;
}
export function readRegularText(full: string, name: string, options?: { readonly followLinks?: boolean }): RegularText;
export function readRegularText(
  full: string,
  name: string,
  options: ReadOptions & { readonly maxBytes: number },
): RegularText | { readonly tooLarge: number };
export function readRegularText(
  full: string,
  name: string,
  options: ReadOptions = {},
): RegularText | { readonly tooLarge: number } {
  const followLinks = options.followLinks ?? true;
  let fd: number;
  try {
    // Non-blocking: opening a pipe must not wait for a writer; a regular file reads as usual.
    fd = openSync(full, constants.O_RDONLY | constants.O_NONBLOCK | (followLinks ? 0 : constants.O_NOFOLLOW));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' && !followLinks)
      return { problem: `${name} became a symbolic link while it was read; not followed` };
    return {
      problem: `${name} ${code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? (error as Error).message})`}`,
    };
  }
  try {
    return readOpened(fd, name, options.maxBytes);
  } finally {
    closeSync(fd);
  }
}

function readOpened(
  fd: number,
  name: string,
  maxBytes: number | undefined,
): RegularText | { readonly tooLarge: number } {
  const stat = fstatSync(fd);
  if (!stat.isFile())
    return { problem: `${name} is not a regular file (a folder, a device or a pipe); expected a text file` };
  if (maxBytes !== undefined && stat.size > maxBytes) return { tooLarge: Number(stat.size) };
  if (stat.size > USER_TEXT_BOUNDS.bytes)
    return {
      problem: `${name} is over ${USER_TEXT_BOUNDS.bytes / 1024 / 1024} MiB; expected a sample at most that large`,
    };
  try {
    const bytes = maxBytes === undefined ? readFileSync(fd) : readAtMost(fd, maxBytes + 1);
    if (maxBytes !== undefined && bytes.length > maxBytes) return { tooLarge: bytes.length };
    const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
    // A U+FFFD the bytes did not spell out is a byte that is not UTF-8 (a binary file, Latin-1, …).
    return { text, notUtf8: text.includes('\uFFFD') && !bytes.includes(Buffer.from('\uFFFD')) };
  } catch (error) {
    return { problem: `${name} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
}

/** Up to `limit` bytes of an open file, however large it is (or says it is). */
function readAtMost(fd: number, limit: number): Buffer {
  const buffer = Buffer.alloc(limit);
  let length = 0;
  for (let n = -1; n !== 0 && length < limit; length += n) n = readSync(fd, buffer, length, limit - length, null);
  return buffer.subarray(0, length);
}

/** A value's shape for a message, never its content (texts may hold PHI). */
function describeShape(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value !== 'object') return `a ${typeof value}`;
  const text = (value as { text?: unknown }).text;
  return text === undefined
    ? 'an object without "text"'
    : `an object whose "text" is ${text === null ? 'null' : `a ${typeof text}`}`;
}
