import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderFiles, hashFile, verifyFolder } from './manifest.js';

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'loadproof-manifest-'));
  writeFileSync(join(dir, 'summary.json'), '{"a": 1}\n');
  mkdirSync(join(dir, 'charts'));
  writeFileSync(join(dir, 'charts', 'latency.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255]));
  writeFileSync(join(dir, 'summary.json.partial'), 'half');
  writeFileSync(join(dir, 'manifest.json'), '{}');
  symlinkSync('/dev/null', join(dir, 'link'));
  // A --run-dir may link events.ndjson to a file elsewhere; a folder of the user's is not walked into.
  const elsewhere = mkdtempSync(join(tmpdir(), 'loadproof-elsewhere-'));
  writeFileSync(join(elsewhere, 'events.ndjson'), '{"seq":0}\n');
  symlinkSync(join(elsewhere, 'events.ndjson'), join(dir, 'events.ndjson'));
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
  it('lists its files and charts/ with "/", a link to a file too; not itself, half-written files, links to anything else, or other folders', async () => {
    expect(await folderFiles(folder())).toEqual(['charts/latency.png', 'events.ndjson', 'summary.json']);
  });

  it('hashes bytes, not text', async () => {
    const dir = folder();
    expect(await hashFile(join(dir, 'charts', 'latency.png'))).toEqual({ bytes: 6, sha256: createHash('sha256').update(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255])).digest('hex') });
  });

  it('verifies: intact, then each kind of change named', async () => {
    const dir = folder();
    await manifestOf(dir, ['charts/latency.png', 'events.ndjson', 'summary.json']);
    expect(await verifyFolder(dir)).toMatchObject({ intact: true, matched: 3, changed: [], missing: [], unlisted: [] });
    writeFileSync(join(dir, 'charts', 'latency.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 254]));
    writeFileSync(join(dir, 'extra.txt'), 'x');
    expect(await verifyFolder(dir)).toMatchObject({ intact: false, matched: 2, changed: ['charts/latency.png'], missing: [], unlisted: ['extra.txt'] });
  });

  it('never reads outside the folder, whatever the manifest names', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ schemaVersion: 1, files: [{ file: '../../../etc/passwd', bytes: 1, sha256: 'x' }] }));
    expect(await verifyFolder(dir)).toMatchObject({ intact: false, missing: ['../../../etc/passwd'], unlisted: ['charts/latency.png', 'events.ndjson', 'summary.json'] });
  });
});
