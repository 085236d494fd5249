import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
  WriteStream,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it, vi } from 'vitest';

import { writeAtomically, writeWhole } from '../core/index.js';
import {
  claimRunFolder,
  dropClaim,
  EVENT_FLUSH_MS,
  EventLog,
  makeRunFolder,
  releaseRunFolder,
  useRunFolder,
} from './write.js';

const fresh = (): string => mkdtempSync(join(tmpdir(), 'loadproof-output-'));
const AT = new Date('2026-11-23T10:00:00.123Z');

describe('makeRunFolder', () => {
  it('gives runs started in the same second their own folders, even all at once', async () => {
    const out = fresh();
    const dirs = await Promise.all(Array.from({ length: 12 }, () => makeRunFolder(out, 'burst', AT)));
    expect(new Set(dirs).size).toBe(12);
    expect(readdirSync(out).sort()).toEqual(
      ['20261123T100000Z-burst', ...Array.from({ length: 11 }, (_, i) => `20261123T100000Z-burst-${i + 2}`)].sort(),
    );
  });

  it('makes missing parents, and says why a location cannot be used', async () => {
    const out = fresh();
    expect(await makeRunFolder(join(out, 'a', 'b'), 'x', AT)).toBe(join(out, 'a', 'b', '20261123T100000Z-x'));
    writeFileSync(join(out, 'file'), '');
    await expect(makeRunFolder(join(out, 'file'), 'x', AT)).rejects.toThrow(
      'cannot make the folder (ENOTDIR: a file is in the way (not a folder))',
    );
    await expect(makeRunFolder(join(out, 'file', 'below'), 'x', AT)).rejects.toThrow(
      /cannot make the folder \(ENOTDIR/,
    );
  });
});

describe('useRunFolder', () => {
  it("takes a new or empty folder, and refuses one holding anything: a run, finished or not, or any file of the user's", async () => {
    const dir = join(fresh(), 'run');
    expect(await useRunFolder(dir)).toBe(dir);
    expect(await useRunFolder(dir)).toBe(dir);
    writeFileSync(join(dir, 'summary.json'), '{}');
    await expect(useRunFolder(dir)).rejects.toThrow('the folder is not empty (it holds summary.json)');
    // Any file refuses the folder, not only summary.json and events.ndjson: no file of the user's is ever overwritten.
    for (const name of ['scenario.yaml', 'report.md', 'run.json', 'manifest.json', 'notes.txt']) {
      const other = join(fresh(), 'run');
      await useRunFolder(other);
      writeFileSync(join(other, name), 'mine');
      await expect(useRunFolder(other)).rejects.toThrow(`the folder is not empty (it holds ${name})`);
    }
    const charts = join(fresh(), 'run');
    mkdirSync(join(charts, 'charts'), { recursive: true });
    await expect(useRunFolder(charts)).rejects.toThrow('(it holds charts)');
  });

  it('releases a folder it made, and empties one it was given', async () => {
    const made = await claimRunFolder(join(fresh(), 'run'));
    writeFileSync(join(made.dir, 'events.ndjson'), '');
    await releaseRunFolder(made, ['events.ndjson']);
    expect(existsSync(made.dir)).toBe(false);
    const given = join(fresh(), 'run');
    mkdirSync(given);
    const claimed = await claimRunFolder(given);
    expect(claimed.made).toBe(false);
    writeFileSync(join(given, 'events.ndjson'), '');
    await releaseRunFolder(claimed, ['events.ndjson']);
    expect(readdirSync(given)).toEqual([]);
  });

  // The claim itself is exclusive, and a release removes only what its command made.
  it("lets one of two commands claim a folder; the other is refused at once, and releasing leaves the winner's files", async () => {
    for (const made of [false, true]) {
      const dir = join(fresh(), 'run');
      if (!made) mkdirSync(dir);
      const claims = await Promise.allSettled([claimRunFolder(dir), claimRunFolder(dir)]);
      expect(claims.map((c) => c.status).sort()).toEqual(['fulfilled', 'rejected']);
      const refused = (claims.find((c) => c.status === 'rejected') as PromiseRejectedResult).reason as {
        exitCode: number;
        message: string;
      };
      expect(refused.exitCode).toBe(2);
      expect(refused.message).toContain(`--run-dir ${dir}: in use by another command`);
      const winner = (
        claims.find((c) => c.status === 'fulfilled') as PromiseFulfilledResult<
          Awaited<ReturnType<typeof claimRunFolder>>
        >
      ).value;
      writeFileSync(join(dir, 'events.ndjson'), 'live');
      // A third, once the winner has written: refused, and the winner's file stays.
      await expect(claimRunFolder(dir)).rejects.toThrow('in use by another command');
      expect(readFileSync(join(dir, 'events.ndjson'), 'utf8')).toBe('live');
      // The winner's claim dropped (its files written, as at the end of a run): a folder with files in it is not empty.
      await dropClaim(winner);
      await expect(claimRunFolder(dir)).rejects.toThrow('the folder is not empty (it holds events.ndjson)');
      expect(readFileSync(join(dir, 'events.ndjson'), 'utf8')).toBe('live');
    }
  });

  it('releases only the entries its command made, whoever made the folder', async () => {
    const dir = join(fresh(), 'run');
    const claimed = await claimRunFolder(dir);
    writeFileSync(join(dir, 'events.ndjson'), '');
    writeFileSync(join(dir, 'not-ours.txt'), 'x');
    await releaseRunFolder(claimed, ['events.ndjson']);
    expect(readdirSync(dir)).toEqual(['not-ours.txt']);
  });

  it('lets only one of two runs that share a folder write its events', async () => {
    const dir = await useRunFolder(join(fresh(), 'run'));
    const opened = await Promise.allSettled([
      EventLog.open(join(dir, 'events.ndjson')),
      EventLog.open(join(dir, 'events.ndjson')),
    ]);
    expect(opened.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = opened.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(String(refused.reason)).toContain('another run is writing it');
  });
});

describe('EventLog and writeWhole', () => {
  it('writes the lines of a burst together, in order (a write per line cost more CPU than the request)', async () => {
    const writes = vi.spyOn(WriteStream.prototype, 'write');
    try {
      const file = join(fresh(), 'events.ndjson');
      const log = await EventLog.open(file);
      for (let i = 0; i < 500; i++) log.write(`{"seq":${i}}\n`);
      expect(await log.close()).toEqual({ file, error: null });
      expect(writes.mock.calls.length).toBe(1);
      expect(readFileSync(file, 'utf8')).toBe(Array.from({ length: 500 }, (_, i) => `{"seq":${i}}\n`).join(''));
    } finally {
      writes.mockRestore();
    }
  });

  it('writes a burst larger than its buffer, and lines in any script, byte for byte as given', async () => {
    const file = join(fresh(), 'events.ndjson');
    const log = await EventLog.open(file);
    // About 400 KB: more than one chunk, a line longer than a chunk among them.
    const lines = Array.from({ length: 3000 }, (_, i) => `{"seq":${i},"phase":"Zoë 東京 📞 ${'x'.repeat(i % 200)}"}\n`);
    lines.splice(1500, 0, `{"long":"${'é'.repeat(70_000)}"}\n`);
    for (const line of lines) log.write(line);
    expect(await log.close()).toEqual({ file, error: null });
    expect(readFileSync(file)).toEqual(Buffer.from(lines.join('')));
  });

  it('writes a line after a quiet spell at the end of the turn, and lines close together within EVENT_FLUSH_MS', async () => {
    const writes = vi.spyOn(WriteStream.prototype, 'write');
    try {
      let nowMs = 1000;
      const file = join(fresh(), 'events.ndjson');
      const log = await EventLog.open(file, () => nowMs);
      log.write('{"seq":0}\n');
      await new Promise((resolve) => setImmediate(resolve));
      // No timer of its own: an idle process is not woken once more per request.
      expect(writes.mock.calls.length).toBe(1);
      nowMs += EVENT_FLUSH_MS / 2;
      log.write('{"seq":1}\n');
      log.write('{"seq":2}\n');
      await new Promise((resolve) => setImmediate(resolve));
      // Half an interval after the line before: these wait, and go together.
      expect(writes.mock.calls.length).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, EVENT_FLUSH_MS * 2));
      expect(writes.mock.calls.length).toBe(2);
      nowMs += EVENT_FLUSH_MS;
      log.write('{"seq":3}\n');
      await new Promise((resolve) => setImmediate(resolve));
      expect(writes.mock.calls.length).toBe(3);
      expect(await log.close()).toEqual({ file, error: null });
      expect(readFileSync(file, 'utf8')).toBe('{"seq":0}\n{"seq":1}\n{"seq":2}\n{"seq":3}\n');
    } finally {
      writes.mockRestore();
    }
  });

  it('writes every line, and reports a full disk with the lines it could not write instead of throwing', async () => {
    const dir = fresh();
    const ok = await EventLog.open(join(dir, 'events.ndjson'));
    for (let i = 0; i < 3; i++) ok.write(`{"seq":${i}}\n`);
    expect(await ok.close()).toEqual({ file: join(dir, 'events.ndjson'), error: null });
    expect(readFileSync(join(dir, 'events.ndjson'), 'utf8').split('\n').filter(Boolean)).toHaveLength(3);

    // Never through a link: a link in its place (a full disk here) is refused, not written through.
    symlinkSync('/dev/full', join(dir, 'full.ndjson'));
    await expect(EventLog.open(join(dir, 'full.ndjson'))).rejects.toThrow('already exists');
    const full = await EventLog.open(join(dir, 'full-2.ndjson'));
    // The full disk, from the stream itself.
    (full as unknown as { stream: WriteStream }).stream.destroy(
      Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }),
    );
    full.write('{"seq":1}\n');
    const result = await full.close();
    expect(result.error).toMatch(/^ENOSPC: no space left on the device/);
    expect(await writeWhole(join(dir, 'full.ndjson'), '{}')).toEqual({
      file: join(dir, 'full.ndjson'),
      error: 'EEXIST: a file is in the way (not a folder)',
    });
    expect(readlinkSync(join(dir, 'full.ndjson'))).toBe('/dev/full');
  });

  it('writeAtomically replaces a link in its way or in its temporary name, never writing through it', async () => {
    const dir = fresh();
    const target = join(fresh(), 'theirs.txt');
    writeFileSync(target, 'theirs');
    symlinkSync(target, join(dir, 'summary.json'));
    symlinkSync(target, join(dir, 'summary.json.partial'));
    expect(await writeAtomically(join(dir, 'summary.json'), 'ours')).toEqual({
      file: join(dir, 'summary.json'),
      error: null,
    });
    expect(readFileSync(target, 'utf8')).toBe('theirs');
    expect(readFileSync(join(dir, 'summary.json'), 'utf8')).toBe('ours');
  });
});
