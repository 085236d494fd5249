/**
 * manifest.json: what made a run folder and a SHA-256 of every file in it, so that support can tell
 * the evidence was not edited: `loadproof verify <run-dir>` hashes the files again. The manifest's own
 * hash, printed by `run`, `report` and `verify`, is what a ticket quotes: editing a number and then
 * the manifest to match changes that hash. Written last, after every other file of the folder.
 */
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { checkRunFolder, type FileResult, openRegular, RUN_SUBFOLDERS, writeAtomically } from '../core/index.js';
import type { HostRecord, RunRecord, Summary } from '../judge/index.js';
import { BRIEF_FILE } from '../report/index.js';
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
  /**
   * Node, OS, CPU, the command line (secrets masked) and the git commit of the directory it ran in; null for a run that
   * did not record them.
   */
  readonly host: HostRecord | null;
  /**
   * The manifest this one replaced (`loadproof report`), and whether the folder still matched it then; null for a run's
   * first.
   */
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

/**
 * The files of a run folder and its RUN_SUBFOLDERS, but the manifest, brief.md (written after it, naming its hash:
 * verify checks that instead) and half-written files: sorted relative paths with '/'. Only regular files: a folder
 * holding anything else (a link) is refused (src/core/read-bounded.ts).
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
      if (file === MANIFEST_FILE || file === BRIEF_FILE || file.endsWith('.partial')) continue;
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
async function buildManifest(
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

const manifestText = (manifest: Manifest): string => `${JSON.stringify(manifest, null, 2)}\n`;

/** The seeds that make a scenario's plan and payloads repeatable. */
const scenarioSeeds = (scenario: Scenario): Record<string, number> => ({
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
