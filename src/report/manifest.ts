/**
 * manifest.json: what made a run folder and a SHA-256 of every file in it, so that support can tell
 * the evidence was not edited: `loadproof verify <run-dir>` hashes the files again. The manifest's own
 * hash, printed by `run`, `report` and `verify`, is what a ticket quotes: editing a number and then
 * the manifest to match changes that hash. Written last, after every other file of the folder.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Dirent } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { HostRecord, RunRecord } from '../judge/index.js';
import type { Summary } from '../judge/index.js';

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
  readonly scenario: { readonly name: string; readonly file: string; readonly source: string; readonly sha256: string; readonly seeds: Record<string, number> };
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

/** A manifest replaced by `loadproof report`: its hash, and what of the folder no longer matched it. */
export interface PreviousManifest {
  readonly sha256: string;
  readonly intact: boolean;
  readonly changed: readonly string[];
  readonly missing: readonly string[];
  readonly unlisted: readonly string[];
}

/** The sub-folders of a run folder that hold its files (charts); nothing else is walked into, so a --run-dir inside another tree does not hash that tree. */
export const RUN_SUBFOLDERS = ['charts'] as const;

/** Whether `path` is a file, or a link to one (a --run-dir may link events.ndjson elsewhere: its bytes are evidence too). */
async function isFileOrLinkToOne(path: string, entry: Dirent): Promise<boolean> {
  if (entry.isFile()) return true;
  if (!entry.isSymbolicLink()) return false;
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}

/** The files of a run folder and its RUN_SUBFOLDERS, but the manifest and half-written files: sorted relative paths with '/'. */
export async function folderFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const folder of ['', ...RUN_SUBFOLDERS]) {
    const entries = await readdir(join(dir, folder), { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (folder !== '' && error.code === 'ENOENT') return [];
      throw error;
    });
    for (const entry of entries) {
      const file = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (file === MANIFEST_FILE || file.endsWith('.partial')) continue;
      if (await isFileOrLinkToOne(join(dir, file), entry)) files.push(file);
    }
  }
  return files.sort();
}

/** A file's size and SHA-256, read as a stream (events.ndjson of a long run is large). */
export async function hashFile(path: string): Promise<{ readonly bytes: number; readonly sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

export const sha256Text = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The manifest of a run folder, as it is now. */
export async function buildManifest(dir: string, run: RunRecord, summary: Summary, seeds: Record<string, number>, previous: PreviousManifest | null = null): Promise<Manifest> {
  const files: ManifestEntry[] = [];
  for (const file of await folderFiles(dir)) files.push({ file, ...(await hashFile(join(dir, file))) });
  return {
    schemaVersion: MANIFEST_SCHEMA_VERSION,
    loadproofVersion: run.loadproofVersion,
    judgedBy: summary.judgedBy,
    scenario: { name: summary.scenario, file: run.scenarioFile, source: run.scenarioSource, sha256: run.scenarioSha256, seeds },
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
  /** Files the manifest lists that are gone. */
  readonly missing: readonly string[];
  /** Files in the folder the manifest does not list: not covered by it. */
  readonly unlisted: readonly string[];
  /** How many files matched. */
  readonly matched: number;
}

/** What `loadproof verify` prints. */
export function describeVerification(dir: string, v: Verification): string {
  const lines = v.intact
    ? [`verify: ${dir}: intact: all ${v.matched} files are byte for byte the ones manifest.json lists`]
    : [
        `verify: ${dir}: NOT INTACT: the folder is not what manifest.json lists`,
        ...v.changed.map((f) => `  changed: ${f}`),
        ...v.missing.map((f) => `  missing: ${f}`),
        ...v.unlisted.map((f) => `  not in the manifest: ${f}`),
        `  ${v.matched} files match`,
      ];
  return `${[...lines, `manifest.json sha256:${v.manifestSha256} (compare it with the one the run printed or the ticket quotes)`].join('\n')}\n`;
}

/** Why a manifest cannot be verified against: missing, unreadable, or not a manifest. */
export class ManifestUnreadable extends Error {}

/** Reads and checks a folder's manifest.json; throws ManifestUnreadable saying why not. */
async function readManifest(dir: string): Promise<{ readonly text: string; readonly manifest: Manifest }> {
  const text = await readFile(join(dir, MANIFEST_FILE), 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new ManifestUnreadable(error.code === 'ENOENT' ? 'missing' : `cannot be read (${error.code ?? error.message})`);
  });
  let manifest: Partial<Manifest> | null;
  try {
    manifest = JSON.parse(text) as Partial<Manifest> | null;
  } catch (error) {
    throw new ManifestUnreadable(`not JSON (${(error as Error).message})`);
  }
  if (manifest === null || typeof manifest !== 'object' || manifest.schemaVersion !== MANIFEST_SCHEMA_VERSION || !Array.isArray(manifest.files)) {
    throw new ManifestUnreadable(`schemaVersion ${JSON.stringify(manifest?.schemaVersion)} with ${Array.isArray(manifest?.files) ? 'a' : 'no'} file list, expected schemaVersion ${MANIFEST_SCHEMA_VERSION} and files[]`);
  }
  return { text, manifest: manifest as Manifest };
}

/**
 * Hashes a run folder's files again against its manifest. Throws ManifestUnreadable when the manifest
 * cannot be read or is not one; a listed file that cannot be read counts as changed.
 */
export async function verifyFolder(dir: string): Promise<Verification> {
  const { text, manifest } = await readManifest(dir);
  const present = new Set(await folderFiles(dir));
  const changed: string[] = [];
  const missing: string[] = [];
  let matched = 0;
  for (const entry of manifest.files) {
    if (!present.has(entry.file)) {
      missing.push(entry.file);
      continue;
    }
    present.delete(entry.file);
    const now = await hashFile(join(dir, entry.file)).catch(() => undefined);
    if (now !== undefined && now.sha256 === entry.sha256 && now.bytes === entry.bytes) matched++;
    else changed.push(entry.file);
  }
  const unlisted = [...present];
  return { manifestSha256: sha256Text(text), intact: changed.length === 0 && missing.length === 0 && unlisted.length === 0, changed, missing, unlisted, matched };
}
