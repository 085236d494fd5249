import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { folderFiles, hashFile } from './manifest.js';
import { describeVerification, ManifestUnreadable, verifyFolder } from './manifest-verify.js';

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'loadproof-manifest-'));
  writeFileSync(join(dir, 'summary.json'), '{"a": 1}\n');
  mkdirSync(join(dir, 'charts'));
  writeFileSync(join(dir, 'charts', 'latency.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255]));
  writeFileSync(join(dir, 'summary.json.partial'), 'half');
  writeFileSync(join(dir, 'manifest.json'), '{}');
  writeFileSync(join(dir, 'events.ndjson'), '{"seq":0}\n');
  // A folder of the user's is not walked into.
  mkdirSync(join(dir, 'node_modules'));
  writeFileSync(join(dir, 'node_modules', 'x.js'), '');
  return dir;
}

const manifestOf = async (dir: string, files: string[]): Promise<void> => {
  const entries = [];
  for (const file of files) entries.push({ file, ...(await hashFile(join(dir, file))) });
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ schemaVersion: 1, files: entries }));
};

describe('the manifest of a run folder', () => {
  it('lists its files and charts/ with "/"; not itself, half-written files, or other folders', async () => {
    expect(await folderFiles(folder())).toEqual(['charts/latency.png', 'events.ndjson', 'summary.json']);
  });

  it('hashes bytes, not text', async () => {
    const dir = folder();
    expect(await hashFile(join(dir, 'charts', 'latency.png'))).toEqual({
      bytes: 6,
      sha256: createHash('sha256')
        .update(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255]))
        .digest('hex'),
    });
  });

  it('verifies: intact, then each kind of change named', async () => {
    const dir = folder();
    await manifestOf(dir, ['charts/latency.png', 'events.ndjson', 'summary.json']);
    expect(await verifyFolder(dir)).toMatchObject({ intact: true, matched: 3, changed: [], missing: [], unlisted: [] });
    writeFileSync(join(dir, 'charts', 'latency.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 254]));
    writeFileSync(join(dir, 'extra.txt'), 'x');
    expect(await verifyFolder(dir)).toMatchObject({
      intact: false,
      matched: 2,
      changed: ['charts/latency.png'],
      missing: [],
      unlisted: ['extra.txt'],
    });
  });

  // A listed file grown to any size (sparse: no disk) is never hashed whole.
  it('counts a file whose size is not the listed one as changed, without hashing it', async () => {
    const dir = folder();
    await manifestOf(dir, ['charts/latency.png', 'events.ndjson', 'summary.json']);
    truncateSync(join(dir, 'events.ndjson'), 200 * 1024 ** 3);
    const v = await verifyFolder(dir);
    expect(v).toMatchObject({
      intact: false,
      matched: 2,
      changed: ['events.ndjson'],
      resized: [{ file: 'events.ndjson', bytes: 200 * 1024 ** 3, listed: 10 }],
    });
    expect(describeVerification(dir, v)).toContain(
      `changed: events.ndjson (${200 * 1024 ** 3} bytes, the manifest lists 10: not hashed)`,
    );
  });

  it('never reads outside the folder, whatever the manifest names', async () => {
    const dir = folder();
    writeFileSync(
      join(dir, 'manifest.json'),
      JSON.stringify({ schemaVersion: 1, files: [{ file: '../../../etc/passwd', bytes: 1, sha256: '0'.repeat(64) }] }),
    );
    expect(await verifyFolder(dir)).toMatchObject({
      intact: false,
      missing: ['../../../etc/passwd'],
      unlisted: ['charts/latency.png', 'events.ndjson', 'summary.json'],
    });
  });

  // A folder received from someone else may hold links out of it.
  it.each([
    {
      what: 'charts/ linked to another folder',
      make: (dir: string) => (
        rmSync(join(dir, 'charts'), { recursive: true }),
        symlinkSync(mkdtempSync(join(tmpdir(), 'loadproof-elsewhere-')), join(dir, 'charts'))
      ),
      path: 'charts',
    },
    {
      what: 'a chart linked out',
      make: (dir: string) => symlinkSync('/etc/hostname', join(dir, 'charts', 'x.png')),
      path: 'charts/x.png',
    },
    {
      what: 'events.ndjson linked out',
      make: (dir: string) => (rmSync(join(dir, 'events.ndjson')), symlinkSync('/dev/zero', join(dir, 'events.ndjson'))),
      path: 'events.ndjson',
    },
    {
      what: 'manifest.json linked out',
      make: (dir: string) => (
        rmSync(join(dir, 'manifest.json')),
        symlinkSync('/etc/hostname', join(dir, 'manifest.json'))
      ),
      path: 'manifest.json',
    },
    {
      what: 'a dangling link',
      make: (dir: string) => symlinkSync('/nowhere', join(dir, 'report.md')),
      path: 'report.md',
    },
    {
      what: 'a FIFO',
      make: (dir: string) => execFileSync('mkfifo', [join(dir, 'summary.json.fifo')]),
      path: 'summary.json.fifo',
    },
  ])('refuses a folder holding $what (exit 2, naming the path), hashing nothing through it', async ({ make, path }) => {
    const dir = folder();
    make(dir);
    // One after the other: a rejection made before it is awaited would be reported as unhandled.
    for (const attempt of [() => folderFiles(dir), () => verifyFolder(dir)]) {
      const error = await attempt().then(
        () => undefined,
        (e: unknown) => e as { exitCode?: number; message: string },
      );
      expect(error?.exitCode).toBe(2);
      expect(error?.message).toContain(join(dir, path));
    }
  });

  // A manifest whose fields are not what they must be is unreadable, never a TypeError.
  it.each([
    { what: 'files[] holding null', files: [null] },
    { what: 'a file without its hash', files: [{ file: 'summary.json', bytes: 9 }] },
    { what: 'files not a list', files: 'x' },
  ])('calls a manifest with $what unreadable', async ({ files }) => {
    const dir = folder();
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ schemaVersion: 1, files }));
    await expect(verifyFolder(dir)).rejects.toBeInstanceOf(ManifestUnreadable);
  });

  // A folder changed after its run, then judged again, has a new manifest that matches it.
  it('is not intact when the manifest matches but its history says the folder changed after its run', async () => {
    const dir = folder();
    await manifestOf(dir, ['charts/latency.png', 'events.ndjson', 'summary.json']);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    manifest.previous = {
      sha256: 'a'.repeat(64),
      intact: false,
      changed: ['events.ndjson'],
      missing: [],
      unlisted: [],
    };
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
    const v = await verifyFolder(dir);
    expect(v).toMatchObject({ intact: false, matched: 3, changed: [], missing: [], unlisted: [] });
    expect(v.history).toContain('changed: events.ndjson');
    // Carried forward as it was: a later report does not launder it.
    manifest.previous = {
      sha256: 'b'.repeat(64),
      intact: false,
      history: 'first seen changed',
      changed: [],
      missing: [],
      unlisted: [],
    };
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
    expect((await verifyFolder(dir)).history).toBe('first seen changed');
  });
});
