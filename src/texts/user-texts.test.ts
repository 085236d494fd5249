/**
 * payload.source as a folder: links are never followed out of it (a scenario must not read files beyond the folder it
 * names), on real files.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { ScenarioError } from '../core/errors.js';
import { readUserTexts } from './user-texts.js';

/** A scenario folder with `notes/` (a.txt inside) and, beside it, `secret/outside.txt`. */
function workspace(): { dir: string; notes: string; scenario: string; outside: string } {
  const dir = mkdtempSync(join(tmpdir(), 'loadproof-texts-'));
  const notes = join(dir, 'notes');
  mkdirSync(notes);
  writeFileSync(join(notes, 'a.txt'), 'Seen on 2024-01-02 by Dr Smith.');
  mkdirSync(join(dir, 'secret'));
  const outside = join(dir, 'secret', 'outside.txt');
  writeFileSync(outside, 'NOT FOR SENDING');
  const scenario = join(dir, 'scenario.yaml');
  writeFileSync(scenario, '');
  return { dir, notes, scenario, outside };
}

const problems = (source: string, scenario: string): readonly string[] => {
  try {
    readUserTexts(source, scenario);
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    return (error as ScenarioError).problems;
  }
  throw new Error('expected a refusal');
};

describe('payload.source: links in the folder', () => {
  it.each([
    [
      'a link to a file outside the folder',
      (w: ReturnType<typeof workspace>) => symlinkSync(w.outside, join(w.notes, 'b.txt')),
      'is a symbolic link out of the source folder',
    ],
    [
      'a relative link out of the folder',
      (w: ReturnType<typeof workspace>) => symlinkSync('../secret/outside.txt', join(w.notes, 'b.txt')),
      'is a symbolic link out of the source folder',
    ],
    [
      'a link to /etc/hostname',
      (w: ReturnType<typeof workspace>) => symlinkSync('/etc/hostname', join(w.notes, 'b.txt')),
      'is a symbolic link out of the source folder',
    ],
    [
      'a link inside that leads to a link out',
      (w: ReturnType<typeof workspace>) => {
        symlinkSync(w.outside, join(w.notes, 'hop'));
        symlinkSync('hop', join(w.notes, 'b.txt'));
      },
      'is a symbolic link out of the source folder',
    ],
    [
      'a link into a linked folder outside',
      (w: ReturnType<typeof workspace>) => {
        symlinkSync(join(w.dir, 'secret'), join(w.notes, 'sub'));
        symlinkSync('sub/outside.txt', join(w.notes, 'b.txt'));
      },
      'is a symbolic link out of the source folder',
    ],
    [
      'a link to the folder itself',
      (w: ReturnType<typeof workspace>) => symlinkSync('.', join(w.notes, 'b.txt')),
      'is a symbolic link out of the source folder',
    ],
    [
      'a link to a folder inside',
      (w: ReturnType<typeof workspace>) => {
        mkdirSync(join(w.notes, 'inner'));
        symlinkSync('inner', join(w.notes, 'b.txt'));
      },
      'which is not a regular file',
    ],
    [
      'a link to /dev/zero',
      (w: ReturnType<typeof workspace>) => symlinkSync('/dev/zero', join(w.notes, 'b.txt')),
      'is a symbolic link out of the source folder',
    ],
    [
      'a dangling link',
      (w: ReturnType<typeof workspace>) => symlinkSync('gone.txt', join(w.notes, 'b.txt')),
      'is a symbolic link to nothing',
    ],
  ])('refuses %s, naming the path', (_what, make, mention) => {
    const w = workspace();
    make(w);
    const [problem, ...rest] = problems('notes', w.scenario);
    expect(rest).toEqual([]);
    expect(problem).toContain(`payload.source: ${join(w.dir, 'notes', 'b.txt')} `);
    expect(problem).toContain(mention);
    expect(problem).toContain('a link in the source folder may point only at a regular file inside it');
  });

  it('reads a link inside the folder to a regular file inside it', () => {
    const w = workspace();
    mkdirSync(join(w.notes, 'kept'));
    writeFileSync(join(w.notes, 'kept', 'c.md'), 'Phone 555-0100.');
    symlinkSync('kept/c.md', join(w.notes, 'b.txt'));
    const texts = readUserTexts('notes', w.scenario);
    expect(texts.documents).toEqual([
      { name: 'a.txt', text: 'Seen on 2024-01-02 by Dr Smith.' },
      { name: 'b.txt', text: 'Phone 555-0100.' },
    ]);
  });

  it('takes a source folder that is itself a link (the user named it), and keeps its contents inside it', () => {
    const w = workspace();
    symlinkSync('notes', join(w.dir, 'linked'));
    expect(readUserTexts('linked', w.scenario).documents.map((d) => d.name)).toEqual(['a.txt']);
    symlinkSync(w.outside, join(w.notes, 'b.txt'));
    expect(problems('linked', w.scenario)[0]).toContain('is a symbolic link out of the source folder');
  });
});
