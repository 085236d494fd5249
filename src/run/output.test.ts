import { mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WriteStream } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { EVENT_FLUSH_MS, EventLog, makeRunFolder, useRunFolder, writeWhole } from './output.js';

const fresh = (): string => mkdtempSync(join(tmpdir(), 'loadproof-output-'));
const AT = new Date('2026-11-23T10:00:00.123Z');

describe('makeRunFolder', () => {
  it('gives runs started in the same second their own folders, even all at once', async () => {
    const out = fresh();
    const dirs = await Promise.all(Array.from({ length: 12 }, () => makeRunFolder(out, 'burst', AT)));
    expect(new Set(dirs).size).toBe(12);
    expect(readdirSync(out).sort()).toEqual(['20261123T100000Z-burst', ...Array.from({ length: 11 }, (_, i) => `20261123T100000Z-burst-${i + 2}`)].sort());
  });

  it('makes missing parents, and says why a location cannot be used', async () => {
    const out = fresh();
    expect(await makeRunFolder(join(out, 'a', 'b'), 'x', AT)).toBe(join(out, 'a', 'b', '20261123T100000Z-x'));
    writeFileSync(join(out, 'file'), '');
    await expect(makeRunFolder(join(out, 'file'), 'x', AT)).rejects.toThrow('cannot make the folder (ENOTDIR: a file is in the way (not a folder))');
    await expect(makeRunFolder(join(out, 'file', 'below'), 'x', AT)).rejects.toThrow(/cannot make the folder \(ENOTDIR/);
  });
});

describe('useRunFolder', () => {
  it('takes a new or empty folder, and refuses one holding a run, finished or not', async () => {
    const dir = join(fresh(), 'run');
    expect(await useRunFolder(dir)).toBe(dir);
    writeFileSync(join(dir, 'summary.json'), '{}');
    await expect(useRunFolder(dir)).rejects.toThrow('it already holds a run (summary.json)');
    const crashed = join(fresh(), 'run');
    await useRunFolder(crashed);
    writeFileSync(join(crashed, 'events.ndjson'), '{"seq":0}\n');
    await expect(useRunFolder(crashed)).rejects.toThrow('it already holds a run (events.ndjson)');
  });

  it('lets only one of two runs that share a folder write its events', async () => {
    const dir = await useRunFolder(join(fresh(), 'run'));
    const opened = await Promise.allSettled([EventLog.open(join(dir, 'events.ndjson')), EventLog.open(join(dir, 'events.ndjson'))]);
    expect(opened.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = opened.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(String(refused.reason)).toContain('another run is writing it');
  });
});

describe('EventLog and writeWhole', () => {
  it('writes the lines of a burst together, in order (issue 11 §1: a write per line cost more CPU than the request)', async () => {
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

    symlinkSync('/dev/full', join(dir, 'full.ndjson'));
    const full = await EventLog.open(join(dir, 'full.ndjson'));
    full.write('x'.repeat(100_000));
    full.write('{"seq":1}\n');
    const result = await full.close();
    expect(result.error).toMatch(/^ENOSPC: no space left on the device/);
    expect(await writeWhole(join(dir, 'full.ndjson'), '{}')).toEqual({ file: join(dir, 'full.ndjson'), error: 'ENOSPC: no space left on the device' });
  });
});
