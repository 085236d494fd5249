/**
 * One writer of files: every text loadproof writes goes through src/core/write-whole-files.ts (whole files: a temporary
 * file made exclusively, never through a link, renamed into place), or src/run-folder/write.ts (the run's streamed
 * events and its folder), and both mask the secrets of every command in progress (src/core/redact.ts `redactWritten`),
 * so a new output file cannot bypass the mask or a link. This test reads the sources: no other module may import a
 * file-writing function of node:fs, open a file for writing, or import node:fs whole.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));
const WRITERS = ['run-folder/write.ts', 'core/write-whole-files.ts'];
/**
 * The one exception, and why: merge copies the shards' events.ndjson byte for byte (bounded memory), text
 * that each shard wrote through the writer; merge itself reads no secret.
 */
const EXCEPTIONS: Record<string, readonly string[]> = { 'run-folder/merge.ts': ['createWriteStream'] };
const WRITE_FUNCTIONS = [
  'writeFile',
  'writeFileSync',
  'appendFile',
  'appendFileSync',
  'createWriteStream',
  'writeSync',
  'copyFile',
  'copyFileSync',
  'cp',
  'cpSync',
  'symlink',
  'rename',
];
/** Opening is reading unless the flags write: a string flag w/a/x/r+, or a numeric flag that writes or creates. */
const OPENS_TO_WRITE = /\bopen(?:Sync)?\([^)]*(?:['"](?:[wax]|r\+)|O_WRONLY|O_RDWR|O_CREAT|O_APPEND|O_TRUNC)/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The names a file imports from node:fs or node:fs/promises (`*` for a whole-module import). */
function fsImports(text: string): string[] {
  const names: string[] = [];
  for (const m of text.matchAll(/import\s+([^;]*?)\s+from\s+['"](?:node:)?fs(?:\/promises)?['"]/g)) {
    const clause = m[1]!;
    if (!clause.includes('{') || /^\s*[\w$]+\s*,|\*/.test(clause)) names.push('*');
    for (const n of clause.match(/\{([^}]*)\}/)?.[1]?.split(',') ?? []) {
      const name = n
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)[0]!;
      if (name !== '') names.push(name);
    }
  }
  return names;
}

describe('one writer of files', () => {
  it(`only ${WRITERS.map((w) => `src/${w}`).join(' and ')} write files (imports a write function of node:fs, or opens a file to write)`, () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const rel = relative(SRC, file);
      if (WRITERS.includes(rel)) continue;
      const text = readFileSync(file, 'utf8');
      const allowed = EXCEPTIONS[rel] ?? [];
      for (const name of fsImports(text))
        if ((name === '*' || WRITE_FUNCTIONS.includes(name)) && !allowed.includes(name))
          offenders.push(`${rel}: imports ${name} from node:fs`);
      if (OPENS_TO_WRITE.test(text)) offenders.push(`${rel}: opens a file to write`);
    }
    expect(offenders).toEqual([]);
  });

  it('the check is not vacuous: it sees the writers themselves, and both mask', () => {
    expect(fsImports(readFileSync(join(SRC, 'run-folder/write.ts'), 'utf8'))).toEqual(
      expect.arrayContaining(['createWriteStream']),
    );
    expect(fsImports(readFileSync(join(SRC, 'core/write-whole-files.ts'), 'utf8'))).toEqual(
      expect.arrayContaining(['open', 'rename', 'writeFile']),
    );
    for (const writer of WRITERS) expect(readFileSync(join(SRC, writer), 'utf8')).toContain('redactWritten(');
  });
});
