/**
 * manifest.json: what made a run folder and a SHA-256 of every file in it, so that support can tell
 * the evidence was not edited: `loadproof verify <run-dir>` hashes the files again. The manifest's own
 * hash, printed by `run`, `report` and `verify`, is what a ticket quotes: editing a number and then
 * the manifest to match changes that hash. Written last, after every other file of the folder.
 */
import { createHash } from 'node:crypto';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

import * as z from 'zod';

import {
  checkRunFolder,
  type FileResult,
  MAX_JSON_BYTES,
  openRegular,
  readRegular,
  RUN_SUBFOLDERS,
  UsageError,
  writeAtomically,
} from '../core/index.js';
import type { HostRecord, RunRecord, Summary } from '../judge/index.js';
import type { Scenario } from '../scenario/index.js';

export const MANIFEST_FILE = 'manifest.json';
export const MANIFEST_SCHEMA_VERSION = 1;

export interface ManifestEntry {
  /** Relative to the run folder, with '/' between folders. */
  readonly file: string;
  readonly bytes: number;
  readonly sha256: string;
}

export interface Manifest {
  readonly schemaVersion: number;
  /** The loadproof that ran the load, and the one that judged it and wrote this manifest. */
  readonly loadproofVersion: string;
  readonly judgedBy: string;
  readonly scenario: {
    readonly name: string;
    readonly file: string;
    readonly source: string;
    readonly sha256: string;
    readonly seeds: Record<string, number>;
  };
  readonly planIdentity: string;
  readonly environment: string;
  readonly target: RunRecord['target'];
  readonly timeScale: number;
  readonly startedAt: string;
  readonly endedAt: string | null;
  readonly partial: boolean;
  readonly verdict: string;
  /** Node, OS, CPU, the command line (secrets masked) and the git commit of the directory it ran in; null for a run that did not record them. */
  readonly host: HostRecord | null;
  /** The manifest this one replaced (`loadproof report`), and whether the folder still matched it then; null for a run's first. */
  readonly previous: PreviousManifest | null;
  readonly files: readonly ManifestEntry[];
}

/**
 * A manifest replaced by `loadproof report`: its hash, and what of the folder no longer matched it. Not
 * intact when the folder did not match it, or when its own history said the folder had changed since its
 * run (`history` then carries that forward, so that a second report does not launder the first).
 */
export interface PreviousManifest {
  /** Null when there was none (a finished run's folder without its manifest.json). */
  readonly sha256: string | null;
  readonly intact: boolean;
  /** Why the folder's history says it changed after its run, when it was not the files alone. */
  readonly history?: string;
  readonly changed: readonly string[];
  readonly missing: readonly string[];
  readonly unlisted: readonly string[];
}

export { RUN_SUBFOLDERS };

/**
 * The files of a run folder and its RUN_SUBFOLDERS, but the manifest and half-written files: sorted relative
 * paths with '/'. Only regular files: a folder holding anything else (a link) is refused (src/core/read-bounded.ts).
 */
export async function folderFiles(dir: string): Promise<string[]> {
  await checkRunFolder(dir);
  const files: string[] = [];
  for (const folder of ['', ...RUN_SUBFOLDERS]) {
    const entries = await readdir(join(dir, folder), { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (folder !== '' && error.code === 'ENOENT') return [];
      throw error;
    });
    for (const entry of entries) {
      const file = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (file === MANIFEST_FILE || file.endsWith('.partial')) continue;
      if (entry.isFile()) files.push(file);
    }
  }
  return files.sort();
}

/** A file's size and SHA-256, read as a stream (events.ndjson of a long run is large). */
export async function hashFile(path: string): Promise<{ readonly bytes: number; readonly sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  // Never through a link, never a FIFO or a device (src/core/read-bounded.ts); streamed, so any size.
  const { handle } = await openRegular(path, Number.MAX_SAFE_INTEGER);
  for await (const chunk of handle.createReadStream()) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

export const sha256Text = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The manifest of a run folder, as it is now. */
export async function buildManifest(
  dir: string,
  run: RunRecord,
  summary: Summary,
  seeds: Record<string, number>,
  previous: PreviousManifest | null = null,
): Promise<Manifest> {
  const files: ManifestEntry[] = [];
  for (const file of await folderFiles(dir)) files.push({ file, ...(await hashFile(join(dir, file))) });
  return {
    schemaVersion: MANIFEST_SCHEMA_VERSION,
    loadproofVersion: run.loadproofVersion,
    judgedBy: summary.judgedBy,
    scenario: {
      name: summary.scenario,
      file: run.scenarioFile,
      source: run.scenarioSource,
      sha256: run.scenarioSha256,
      seeds,
    },
    planIdentity: run.planIdentity,
    environment: run.environment,
    target: run.target,
    timeScale: run.timeScale,
    startedAt: run.startedAt,
    endedAt: summary.endedAt,
    partial: summary.partial,
    verdict: summary.verdict.status,
    host: run.host ?? null,
    previous,
    files,
  };
}

export const manifestText = (manifest: Manifest): string => `${JSON.stringify(manifest, null, 2)}\n`;

export interface Verification {
  /** SHA-256 of manifest.json as it is on disk. */
  readonly manifestSha256: string;
  readonly intact: boolean;
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
}

/** What `loadproof verify` prints. */
export function describeVerification(dir: string, v: Verification): string {
  const filesMatch = v.changed.length === 0 && v.missing.length === 0 && v.unlisted.length === 0;
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
          `  ${v.matched} files match`,
          ...(v.history === null ? [] : [`  history: ${v.history}`]),
        ];
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

/** Reads and checks a folder's manifest.json; throws ManifestUnreadable saying why not (with its hash when it could be read). */
async function readManifest(dir: string): Promise<{ readonly text: string; readonly manifest: Manifest }> {
  const path = join(dir, MANIFEST_FILE);
  const text = await readRegular(path, MAX_JSON_BYTES).catch((error: unknown) => {
    // A link, a FIFO or a device in its place is refused like any in the folder (exit 2); a missing or unreadable one is said so.
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
  return {
    manifestSha256: sha256Text(text),
    intact: changed.length === 0 && missing.length === 0 && unlisted.length === 0 && history === null,
    changed,
    resized,
    missing,
    unlisted,
    matched,
    history,
  };
}

/** The seeds that make a scenario's plan and payloads repeatable. */
export const scenarioSeeds = (scenario: Scenario): Record<string, number> => ({
  arrivals: scenario.arrivals.seed,
  payload: scenario.payload.seed,
});

export interface ManifestWrite extends FileResult {
  /** SHA-256 of manifest.json as written (hex); null when it could not be written. */
  readonly sha256: string | null;
}

/** Writes manifest.json, last: a SHA-256 of every other file of the folder. */
export async function writeManifest(
  dir: string,
  run: RunRecord,
  summary: Summary,
  scenario: Scenario,
  redact: (text: string) => string,
  previous: PreviousManifest | null = null,
): Promise<ManifestWrite> {
  try {
    const text = redact(manifestText(await buildManifest(dir, run, summary, scenarioSeeds(scenario), previous)));
    const written = await writeAtomically(join(dir, MANIFEST_FILE), text);
    return { ...written, sha256: written.error === null ? sha256Text(text) : null };
  } catch (error) {
    // A file that cannot be read to hash it: the manifest is not written, and says why.
    return { file: join(dir, MANIFEST_FILE), error: (error as Error).message, sha256: null };
  }
}
