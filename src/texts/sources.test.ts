import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { ScenarioError } from '../core/errors.js';
import { createRng } from '../core/rng.js';
import { estimateModelTokens } from '../spec/index.js';
import { generateNote } from './index.js';
import { createTextSource, type PayloadSettings } from './sources.js';
import { readUserTexts } from './user-texts.js';

const DEFAULTS: PayloadSettings = {
  source: 'generated',
  minChars: 400,
  maxChars: 850,
  split: { maxTokens: 1024, margin: 0.1 },
  seed: 1,
};

/** A scenario file in a fresh folder, beside `files` (name → content). */
function workspace(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'loadproof-payload-'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return join(dir, 'scenario.yaml');
}

const problemsOf = (f: () => unknown): string[] => {
  try {
    f();
  } catch (error) {
    if (error instanceof ScenarioError) return [...error.problems];
    throw error;
  }
  throw new Error('expected a ScenarioError');
};

describe('createTextSource', () => {
  it('sends the notes of earlier runs from the same seed, whole, when no length class is asked for', () => {
    const source = createTextSource(DEFAULTS);
    const rng = createRng(1);
    for (let i = 0; i < 50; i++) expect(source.next()).toBe(generateNote(rng, { minChars: 400, maxChars: 850 }));
    const record = source.record();
    expect(record).toMatchObject({
      source: 'generated',
      path: null,
      texts: 50,
      documents: 50,
      splitDocuments: 0,
      empty: [],
    });
    expect(record.characters!.min).toBeGreaterThanOrEqual(400);
    expect(record.characters!.max).toBeLessThanOrEqual(850);
  });

  it('splits long generated documents and sends their pieces in order, each under the limit less the margin', () => {
    const source = createTextSource({ ...DEFAULTS, lengths: { long: 1 } });
    const texts = Array.from({ length: 200 }, () => source.next());
    const record = source.record();
    expect(record.source).toBe('documents');
    expect(record.splitDocuments).toBe(record.documents);
    expect(record.documents).toBeLessThan(200 / 2);
    for (const t of texts) expect(estimateModelTokens(t)).toBeLessThanOrEqual(Math.floor(1024 * 0.9));
    expect(record.estimatedTokens!.max).toBe(Math.max(...texts.map(estimateModelTokens)));
    // A document's first piece opens with its title.
    expect(texts[0]).toMatch(/^(PROGRESS NOTE|DISCHARGE SUMMARY|REFERRAL LETTER)\n\n/);
  });

  it('keeps with each generated document of a deid run its PHI, as spans of its text, and its length class', () => {
    const source = createTextSource({ ...DEFAULTS, seed: 3 }, undefined, 'deid');
    for (let i = 0; i < 20; i++) source.next();
    const doc = source.document(0)!;
    expect(doc.lengthClass).toMatch(/^(short|typical|nearLimit|long)$/);
    expect(doc.phi!.length).toBeGreaterThan(0);
    for (const p of doc.phi!) expect(p.end).toBeLessThanOrEqual(doc.text.length);
    const again = createTextSource({ ...DEFAULTS, seed: 3 }, undefined, 'deid');
    again.next();
    expect(again.document(0)).toEqual(doc);
  });

  it('sizes the near-limit class to the limit it splits at', () => {
    const source = createTextSource({ ...DEFAULTS, lengths: { nearLimit: 1 }, split: { maxTokens: 1024, margin: 0 } });
    const texts = Array.from({ length: 60 }, () => source.next());
    expect(source.record().splitDocuments).toBe(0);
    for (const t of texts) expect(t.length).toBeGreaterThanOrEqual(853 - 80);
  });

  it("draws the user's texts, splits the long ones, and records sizes, not texts", () => {
    const long = 'A sentence about the patient named Mary Smith. '.repeat(60);
    const file = workspace({
      'texts/a.txt': 'Seen on 01/02/2024 by Dr. Jones.',
      'texts/b.txt': long,
      'texts/empty.txt': '  \n',
      'texts/skip.md': 'not a .txt',
    });
    const user = readUserTexts('texts', file);
    expect(user.documents.map((d) => d.name)).toEqual(['a.txt', 'b.txt']);
    expect(user.empty).toEqual(['empty.txt']);
    const source = createTextSource({ ...DEFAULTS, source: 'texts' }, user);
    const texts = Array.from({ length: 40 }, () => source.next());
    expect(new Set(texts).has('Seen on 01/02/2024 by Dr. Jones.')).toBe(true);
    expect(texts.every((t) => estimateModelTokens(t) <= 921)).toBe(true);
    const record = source.record();
    expect(record).toMatchObject({ source: 'files', texts: 40, empty: ['empty.txt'] });
    expect(record.splitDocuments).toBeGreaterThan(0);
    expect(JSON.stringify(record)).not.toContain('Mary Smith');
  });
});

describe('readUserTexts', () => {
  it('refuses what is not a regular file instead of reading it (a folder named .txt, a pipe, a device), and drops a byte-order mark', () => {
    const file = workspace({
      'bom.ndjson': '\uFEFF{"text":"with a BOM"}\r\n',
      'folder/a.txt': 'fine',
      'odd/dir.txt/x': 'inside',
    });
    expect(readUserTexts('bom.ndjson', file).documents).toEqual([{ name: 'bom.ndjson line 1', text: 'with a BOM' }]);
    writeFileSync(join(file, '..', 'folder', 'latin1.txt'), Buffer.from('caf\xe9 au lait', 'latin1'));
    expect(readUserTexts('folder', file)).toMatchObject({
      notUtf8: ['latin1.txt'],
      documents: [{ name: 'a.txt' }, { name: 'latin1.txt' }],
    });
    expect(problemsOf(() => readUserTexts('odd', file))[0]).toBe(
      'payload.source: dir.txt is not a regular file (a folder, a device or a pipe); expected a text file',
    );
    symlinkSync('/dev/zero', join(file, '..', 'zero.ndjson'));
    expect(problemsOf(() => readUserTexts('zero.ndjson', file))[0]).toContain('zero.ndjson is not a regular file');
    execFileSync('mkfifo', [join(file, '..', 'pipe.ndjson')]);
    expect(problemsOf(() => readUserTexts('pipe.ndjson', file))[0]).toContain('pipe.ndjson is not a regular file');
  });

  it('reads an NDJSON file of {"text"} lines, skipping blank lines and listing empty texts', () => {
    const file = workspace({ 'notes.ndjson': '{"text":"one"}\n\n{"text":""}\n{"id":3,"text":"three"}\n' });
    const user = readUserTexts('notes.ndjson', file);
    expect(user.documents).toEqual([
      { name: 'notes.ndjson line 1', text: 'one' },
      { name: 'notes.ndjson line 4', text: 'three' },
    ]);
    expect(user.empty).toEqual(['notes.ndjson line 3']);
  });

  it('names the field, the file, the line and what was expected — never the text', () => {
    const file = workspace({
      'bad.ndjson': '{"text":"fine"}\nnot json\n{"text":5}\n["a"]\n{"body":"Mary Smith"}\n',
      'empty/none.txt': '',
      'other.csv': 'a,b',
    });
    expect(problemsOf(() => readUserTexts('bad.ndjson', file))).toEqual([
      'payload.source: bad.ndjson line 2: expected a JSON object with a string "text", got text that is not JSON',
      'payload.source: bad.ndjson line 3: expected a JSON object with a string "text", got an object whose "text" is a number',
      'payload.source: bad.ndjson line 4: expected a JSON object with a string "text", got an array',
      'payload.source: bad.ndjson line 5: expected a JSON object with a string "text", got an object without "text"',
    ]);
    expect(problemsOf(() => readUserTexts('missing', file))[0]).toMatch(
      /^payload\.source: "missing" \(.*\) does not exist; expected "generated", a folder of \.txt files or an \.ndjson file$/,
    );
    expect(problemsOf(() => readUserTexts('empty', file))[0]).toMatch(/every text in .* is empty \(1\)/);
    expect(problemsOf(() => readUserTexts('other.csv', file))[0]).toMatch(/does not end in \.ndjson or \.jsonl/);
  });
});
