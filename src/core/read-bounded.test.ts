import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { checkRunFolder, readLines, readRegular } from './read-bounded.js';

const fresh = (): string => mkdtempSync(join(tmpdir(), 'loadproof-run-folder-'));

async function lines(
  text: string,
  bounds = { maxLineBytes: 200_000, maxBytes: 10_000_000 },
): Promise<[number, string][]> {
  const file = join(fresh(), 'f');
  writeFileSync(file, text);
  const got: [number, string][] = [];
  for await (const { line, number } of readLines(file, bounds)) got.push([number, line]);
  return got;
}

describe('readLines', () => {
  it.each(['', 'a', 'a\n', 'a\nb', '\n\n', `${'é'.repeat(40_000)}\nx\n`, `${'x'.repeat(70_000)}\n${'y'.repeat(3)}`])(
    'splits %j as split("\\n") does, numbering from 1, across chunks',
    async (text) => {
      const want = text.split('\n');
      if (want.at(-1) === '') want.pop();
      expect(await lines(text)).toEqual(want.map((l, i) => [i + 1, l]));
    },
  );

  it('refuses the first line over its bound, naming it, without reading the rest', async () => {
    await expect(lines(`ok\n${'x'.repeat(101)}\n`, { maxLineBytes: 100, maxBytes: 10_000 })).rejects.toThrow(
      / line 2: longer than 100 bytes/,
    );
    await expect(lines('x'.repeat(10_001), { maxLineBytes: 100_000, maxBytes: 10_000 })).rejects.toThrow(
      /10001 bytes, expected at most 10000/,
    );
  });
});

describe('reading a run folder', () => {
  it('reads only regular files: a FIFO, a device or a link is refused at once (exit 2), naming it', async () => {
    const dir = fresh();
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    symlinkSync('/dev/zero', join(dir, 'zero'));
    for (const name of ['fifo', 'zero']) {
      const error = await readRegular(join(dir, name)).then(
        () => undefined,
        (e: unknown) => e as { exitCode: number; message: string },
      );
      expect(error?.exitCode).toBe(2);
      expect(error?.message).toContain(join(dir, name));
    }
    await expect(readRegular('/dev/zero')).rejects.toThrow('a device, expected a regular file');
  });

  it('checkRunFolder: regular files and folders pass; charts/ must be a folder of regular files', async () => {
    const dir = fresh();
    writeFileSync(join(dir, 'run.json'), '{}');
    mkdirSync(join(dir, 'charts'));
    writeFileSync(join(dir, 'charts', 'a.png'), '');
    mkdirSync(join(dir, 'other'));
    symlinkSync('/etc', join(dir, 'other', 'etc'));
    await expect(checkRunFolder(dir)).resolves.toBeUndefined();
    mkdirSync(join(dir, 'charts', 'inner'));
    await expect(checkRunFolder(dir)).rejects.toThrow(
      `${join(dir, 'charts', 'inner')}: a folder, expected a regular file`,
    );
  });
});
