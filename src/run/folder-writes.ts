/** How a run writes its own files into its folder: every line through the secret mask. */
import { join } from 'node:path';

import { type FileResult, type SecretMask, writeAtomically, writeWhole } from '../core/index.js';
import type { RunRecord } from '../judge/index.js';

/** How the run writes its own files into its folder: masked, and named relative to it. */
export interface FolderWrites {
  readonly relative: (f: FileResult) => FileResult;
  readonly writeText: (file: string, text: string) => Promise<FileResult>;
  /** summary.json and run.json are written whole or not at all: a reader never finds half of one. */
  readonly writeJsonAtomically: (file: string, text: string | Iterable<string>) => Promise<FileResult>;
  readonly writeRunJson: (record: RunRecord) => Promise<FileResult>;
}

export function folderWrites(reportDir: string, secrets: SecretMask): FolderWrites {
  const relative = (f: FileResult): FileResult => ({ file: f.file.slice(reportDir.length + 1), error: f.error });
  function* redactEach(pieces: Iterable<string>): Generator<string> {
    for (const piece of pieces) yield secrets.redact(piece);
  }
  const writeJsonAtomically = async (file: string, text: string | Iterable<string>): Promise<FileResult> =>
    relative(
      await writeAtomically(join(reportDir, file), typeof text === 'string' ? secrets.redact(text) : redactEach(text)),
    );
  return {
    relative,
    writeText: async (file, text) => relative(await writeWhole(join(reportDir, file), secrets.redact(text))),
    writeJsonAtomically,
    writeRunJson: (record) => writeJsonAtomically('run.json', `${JSON.stringify(record, null, 2)}\n`),
  };
}
