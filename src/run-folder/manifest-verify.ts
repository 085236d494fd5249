/**
 * `loadproof verify`: a run folder's files hashed again against its manifest.json, and the manifest's own
 * history (a `previous` that was not intact) carried into the verdict, so that support can tell whether the
 * evidence was edited after its run.
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';

import * as z from 'zod';

import { checkRunFolder, MAX_JSON_BYTES, readRegular, UsageError } from '../core/index.js';
import { BRIEF_FILE, briefManifestSha256 } from '../report/index.js';
import { formatDuration } from '../scenario/index.js';
import {
  folderFiles,
  hashFile,
  type Manifest,
  MANIFEST_FILE,
  MANIFEST_SCHEMA_VERSION,
  sha256Text,
} from './manifest.js';
import { readRunRecord } from './read.js';

interface Verification {
  /** SHA-256 of manifest.json as it is on disk. */
  readonly manifestSha256: string;
  /** The files are the ones listed, the history is clean, and brief.md (when there is one) names this manifest. */
  readonly intact: boolean;
  /** The same, brief.md aside: what the manifest vouches for (`report` writes the brief again anyway). */
  readonly filesIntact: boolean;
  /** Files the manifest lists whose bytes changed. */
  readonly changed: readonly string[];
  /** Those of `changed` whose size is not the listed one: not hashed (a file of any size costs no time). */
  readonly resized: readonly { readonly file: string; readonly bytes: number; readonly listed: number }[];
  /** Files the manifest lists that are gone. */
  readonly missing: readonly string[];
  /** Files in the folder the manifest does not list: not covered by it. */
  readonly unlisted: readonly string[];
  /** How many files matched. */
  readonly matched: number;
  /** Why the manifest's own history says the folder changed after its run (its `previous` was not intact), or null. */
  readonly history: string | null;
  /** What judges the run that it did not record itself (an idle time declared after it), or null. */
  readonly declaredAfter: string | null;
  /** brief.md (not listed: written after the manifest): absent, naming this manifest, or why it does not. */
  readonly brief: { readonly ok: boolean; readonly text: string } | null;
}

/** What `loadproof verify` prints. */
export function describeVerification(dir: string, v: Verification): string {
  const filesMatch =
    v.changed.length === 0 && v.missing.length === 0 && v.unlisted.length === 0 && v.brief?.ok !== false;
  const lines = v.intact
    ? [`verify: ${dir}: intact: all ${v.matched} files are byte for byte the ones manifest.json lists`]
    : filesMatch
      ? [
          `verify: ${dir}: NOT INTACT: all ${v.matched} files are the ones manifest.json lists, but its history says the folder was changed after its run`,
          `  history: ${v.history}`,
        ]
      : [
          `verify: ${dir}: NOT INTACT: the folder is not what manifest.json lists`,
          ...v.changed.map((f) => {
            const r = v.resized.find((x) => x.file === f);
            return `  changed: ${f}${r === undefined ? '' : ` (${r.bytes} bytes, the manifest lists ${r.listed}: not hashed)`}`;
          }),
          ...v.missing.map((f) => `  missing: ${f}`),
          ...v.unlisted.map((f) => `  not in the manifest: ${f}`),
          ...(v.brief?.ok === false ? [`  ${v.brief.text}`] : []),
          `  ${v.matched} files match`,
          ...(v.history === null ? [] : [`  history: ${v.history}`]),
        ];
  if (v.brief?.ok === true) lines.push(`  ${v.brief.text}`);
  if (v.declaredAfter !== null) lines.push(`  ${v.declaredAfter}`);
  return `${[...lines, `manifest.json sha256:${v.manifestSha256} (compare it with the one the run printed or the ticket quotes)`].join('\n')}\n`;
}

/** Why a manifest cannot be verified against: missing, unreadable, or not a manifest. */
export class ManifestUnreadable extends Error {
  /** `sha256`: of the file's bytes, when it could be read. */
  constructor(
    message: string,
    readonly sha256: string | null = null,
  ) {
    super(message);
  }
}

const manifestSchema = z.looseObject({
  schemaVersion: z.literal(MANIFEST_SCHEMA_VERSION),
  previous: z
    .object({
      sha256: z.string().max(200).nullable(),
      intact: z.boolean(),
      history: z
        .string()
        .max(64 * 1024)
        .optional(),
      changed: z.array(z.string().max(4096)),
      missing: z.array(z.string().max(4096)),
      unlisted: z.array(z.string().max(4096)),
    })
    .nullable()
    .optional(),
  files: z
    .array(
      z.object({
        file: z.string().max(4096),
        bytes: z.number().int().min(0),
        sha256: z.string().regex(/^[0-9a-f]{64}$/),
      }),
    )
    .max(1_000_000),
});

/**
 * Reads and checks a folder's manifest.json; throws ManifestUnreadable saying why not (with its hash when it could be
 * read).
 */
async function readManifest(dir: string): Promise<{ readonly text: string; readonly manifest: Manifest }> {
  const path = join(dir, MANIFEST_FILE);
  const text = await readRegular(path, MAX_JSON_BYTES).catch((error: unknown) => {
    // A link, a FIFO or a device in its place is refused like any in the folder (exit 2); a missing or unreadable one
    // is said so.
    if (error instanceof UsageError && !/cannot read it \(/.test(error.message)) throw error;
    throw new ManifestUnreadable(
      /ENOENT/.test((error as Error).message) ? 'missing' : `cannot be read (${(error as Error).message})`,
    );
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ManifestUnreadable(`not JSON (${(error as Error).message})`, sha256Text(text));
  }
  const shape = value as Partial<Manifest> | null;
  if (
    shape === null ||
    typeof shape !== 'object' ||
    shape.schemaVersion !== MANIFEST_SCHEMA_VERSION ||
    !Array.isArray(shape.files)
  ) {
    throw new ManifestUnreadable(
      `schemaVersion ${JSON.stringify(shape?.schemaVersion)} with ${Array.isArray(shape?.files) ? 'a' : 'no'} file list, expected schemaVersion ${MANIFEST_SCHEMA_VERSION} and files[]`,
      sha256Text(text),
    );
  }
  const parsed = manifestSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ManifestUnreadable(
      `${issue.path.length === 0 ? '(top)' : issue.path.join('.')}: ${issue.message} (expected schemaVersion ${MANIFEST_SCHEMA_VERSION} and files[] of {file, bytes, sha256})`,
      sha256Text(text),
    );
  }
  return { text, manifest: value as Manifest };
}

/** Why a manifest's own history says its folder changed after its run, or null: its `previous` was not intact. */
function historyOf(manifest: Manifest): string | null {
  const p = manifest.previous;
  if (p === null || p === undefined || p.intact) return null;
  if (p.history !== undefined) return p.history;
  const what = [
    ...p.changed.map((f) => `changed: ${f}`),
    ...p.missing.map((f) => `missing: ${f}`),
    ...p.unlisted.map((f) => `not in it: ${f}`),
  ].join(', ');
  return `loadproof report found the folder did not match its manifest.json${p.sha256 === null ? '' : ` sha256:${p.sha256}`} (${what || 'no detail'}) and wrote this one over it`;
}

/**
 * Hashes a run folder's files again against its manifest. Throws ManifestUnreadable when the manifest
 * cannot be read or is not one; a listed file that cannot be read counts as changed.
 */
export async function verifyFolder(dir: string): Promise<Verification> {
  // Refused first (exit 2, naming the path): a folder holding a link is never hashed through it.
  await checkRunFolder(dir);
  const { text, manifest } = await readManifest(dir);
  const present = new Set(await folderFiles(dir));
  const changed: string[] = [];
  const resized: { file: string; bytes: number; listed: number }[] = [];
  const missing: string[] = [];
  let matched = 0;
  for (const entry of manifest.files) {
    if (!present.has(entry.file)) {
      missing.push(entry.file);
      continue;
    }
    present.delete(entry.file);
    // Another size is another file: said so without reading it (a file grown to any size costs no time).
    const bytes = await lstat(join(dir, entry.file)).then(
      (s) => s.size,
      () => undefined,
    );
    if (bytes !== undefined && bytes !== entry.bytes) {
      changed.push(entry.file);
      resized.push({ file: entry.file, bytes, listed: entry.bytes });
      continue;
    }
    const now = await hashFile(join(dir, entry.file)).catch(() => undefined);
    if (now !== undefined && now.sha256 === entry.sha256 && now.bytes === entry.bytes) matched++;
    else changed.push(entry.file);
  }
  const unlisted = [...present];
  const history = historyOf(manifest);
  const manifestSha256 = sha256Text(text);
  const brief = await briefNames(dir, manifestSha256);
  const filesIntact = changed.length === 0 && missing.length === 0 && unlisted.length === 0 && history === null;
  return {
    manifestSha256,
    intact: filesIntact && brief?.ok !== false,
    filesIntact,
    changed,
    resized,
    missing,
    unlisted,
    matched,
    history,
    declaredAfter: await declaredAfterRun(dir),
    brief,
  };
}

/** Whether brief.md names this manifest (its hash); null without a brief.md. */
async function briefNames(dir: string, manifestSha256: string): Promise<Verification['brief']> {
  let text: string;
  try {
    text = await readRegular(join(dir, BRIEF_FILE), BRIEF_MAX_BYTES);
  } catch (error) {
    if (error instanceof UsageError && !/cannot read it \(/.test(error.message)) throw error;
    if (/ENOENT/.test((error as Error).message)) return null;
    return { ok: false, text: `${BRIEF_FILE}: cannot be read (${(error as Error).message})` };
  }
  const named = briefManifestSha256(text);
  if (named === manifestSha256) return { ok: true, text: `${BRIEF_FILE} names this manifest.json` };
  return {
    ok: false,
    text:
      named === null
        ? `${BRIEF_FILE}: names no manifest.json SHA-256`
        : `${BRIEF_FILE}: names manifest.json sha256:${named}, not this one (\`loadproof report <folder>\` writes it again)`,
  };
}

/** brief.md is a page of text: a larger one is not read. */
const BRIEF_MAX_BYTES = 1024 * 1024;

/**
 * `loadproof report --idle-before` rewrote run.json: the folder is intact, but its verdict rests on what the user
 * declared after the run, which verify says (run.json's own damage is the hashes' to tell: unread here, nothing said).
 */
async function declaredAfterRun(dir: string): Promise<string | null> {
  const run = await readRunRecord(dir).catch(() => undefined);
  const idle = run?.idleBefore;
  if (idle === undefined || idle.declaredBy !== 'report') return null;
  return `run.json: the client's idle time before the run (${formatDuration(idle.ms)}) was declared after it (loadproof report, ${idle.at}); the envelope judged the 429s from it`;
}
