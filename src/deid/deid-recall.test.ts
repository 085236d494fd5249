import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { EXIT, UsageError } from '../core/index.js';
import type { DeidResult } from './chain.js';
import { deidRecall, locateExpected } from './deid-recall.js';
import { deidVerdict, mockCaveat } from './deid-verdict.js';
import { readPhiAnnotations } from './phi-annotations.js';

const dir = mkdtempSync(join(tmpdir(), 'deid-expect-'));
const file = (name: string, body: string): string => {
  const path = join(dir, name);
  writeFileSync(path, body);
  return path;
};

const TEXT = 'Note\nSeen: Priya Venkataraman, MRN 2093-4471-88.\nCall 555-0100.';

/** A chain result that replaced `spans` with [X] and found `found`. */
function resultOf(spans: readonly [number, number][], found = spans): DeidResult {
  const replacements = spans.map(([start, end]) => ({ type: 'NAME', start, end, replacement: '[X]' }));
  let out = '';
  let at = 0;
  for (const r of replacements) {
    out += TEXT.slice(at, r.start) + r.replacement;
    at = r.end;
  }
  return {
    text: out + TEXT.slice(at),
    entities: found.map(([start, end]) => ({ type: 'NAME', start, end })),
    replacements,
    pieces: [{ text: TEXT, offset: 0 }],
    seams: 0,
    identifyRequests: 1,
    truncatedPieces: 0,
    cuts: [],
    foundStillPresent: 0,
  };
}

const span = (value: string): [number, number] => [TEXT.indexOf(value), TEXT.indexOf(value) + value.length];

describe('deid --expect: known PHI', () => {
  it('reads a JSON array and NDJSON alike', async () => {
    const want = [
      { text: 'Priya Venkataraman', kind: 'NAME' },
      { text: '2093-4471-88', kind: 'MRN' },
    ];
    expect(await readPhiAnnotations(file('a.json', JSON.stringify(want)))).toEqual(want);
    const ndjson = `\uFEFF${want.map((a) => JSON.stringify(a)).join('\n')}\n\n`;
    expect(await readPhiAnnotations(file('a.ndjson', ndjson))).toEqual(want);
  });

  it.each([
    [
      '[{"text": "Ann Lee", "kind": "PERSON"}]',
      /b\.json item 1: kind: expected one of NAME, ADDRESS, .*; got "PERSON"/,
    ],
    [
      '{"text": "Ann Lee", "kind": "NAME"}\n{"text": "", "kind": "NAME"}',
      /b\.json line 2: text: expected a non-empty string, got an empty one/,
    ],
    ['["Ann Lee"]', /b\.json item 1: expected an object \{"text", "kind"\}, got a string of 7 characters/],
    ['{"text": "Ann Lee", "kind": "NAME"', /b\.json line 1: not valid JSON/],
    ['[]', /b\.json: no annotation/],
  ])('refuses %s, naming the file, the item and the field, never the text', async (body, message) => {
    const error = await readPhiAnnotations(file('b.json', body)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(message);
    expect((error as UsageError).message).not.toContain('Ann Lee');
    expect((error as UsageError).exitCode).toBe(EXIT.badInput);
  });

  it('refuses an annotation the document does not hold, by its number, kind and length', () => {
    const annotations = [
      { text: 'Priya Venkataraman', kind: 'NAME' as const },
      { text: 'Priya Venkatraman', kind: 'NAME' as const },
    ];
    expect(() => locateExpected(TEXT, annotations, 'n.json', false)).toThrow(
      'n.json: 1 annotation is not in the document: annotation 2 (NAME, 17 characters); expected each text to occur in it as whole words',
    );
    expect(() => locateExpected(TEXT, annotations, 'n.json', true)).toThrow(
      '(NAME, 17 characters "Priya Venkatraman")',
    );
  });

  it('refuses an annotation found only inside a word, saying it must stand as whole words', () => {
    expect(() => locateExpected(TEXT, [{ text: 'Venkat', kind: 'NAME' }], 'n.json', false)).toThrow(
      'n.json: 1 annotation is not in the document: annotation 1 (NAME, 6 characters); expected each text to occur in it as whole words',
    );
  });

  it('tells each item left in clear by kind, line:column and length, and fails naming how many of which kinds', () => {
    const planted = locateExpected(
      TEXT,
      [
        { text: 'Priya Venkataraman', kind: 'NAME' },
        { text: '2093-4471-88', kind: 'MRN' },
        { text: '555-0100', kind: 'PHONE' },
      ],
      'n.json',
      false,
    );
    // Half the name replaced, the MRN missed, the phone removed.
    const result = resultOf([span('Priya'), span('555-0100')]);
    const recall = deidRecall(TEXT, planted, result);
    expect(recall.tally.overall).toEqual({ planted: 3, found: 1, removed: 1, partlyInClear: 1, inClear: 1 });
    expect(recall.leftInClear.map((i) => [i.kind, i.fate, i.line, i.column, i.length])).toEqual([
      ['NAME', 'partlyInClear', 2, 7, 18],
      ['MRN', 'inClear', 2, 31, 12],
    ]);
    const verdict = deidVerdict(result, recall);
    expect(verdict.exit).toBe(EXIT.slaNotMet);
    expect(verdict.lines).toEqual(['deid: FAIL: 2 of 3 known PHI items left in clear: NAME 1 (1 partly), MRN 1']);
  });

  it("marks an item the first split's cut crosses as straddling, in its list and its count", () => {
    const planted = locateExpected(TEXT, [{ text: 'Priya Venkataraman', kind: 'NAME' }], 'n.json', false);
    const result = { ...resultOf([]), cuts: [TEXT.indexOf('Venkataraman')] };
    const recall = deidRecall(TEXT, planted, result);
    expect(recall.leftInClear.map((i) => i.straddles)).toEqual([true]);
    expect(recall.tally.straddling).toEqual({ planted: 1, found: 0, removed: 0, partlyInClear: 0, inClear: 1 });
  });

  it('passes when every known item is removed, and says what cannot be known without them', () => {
    const planted = locateExpected(TEXT, [{ text: '555-0100', kind: 'PHONE' }], 'n.json', false);
    const result = resultOf([span('555-0100')]);
    expect(deidVerdict(result, deidRecall(TEXT, planted, result))).toEqual({
      exit: EXIT.pass,
      lines: ['deid: all 1 known PHI item removed'],
    });
    const two = resultOf([span('Priya'), span('555-0100')]);
    expect(deidVerdict({ ...two, foundStillPresent: 1 }, undefined)).toEqual({
      exit: EXIT.slaNotMet,
      lines: [
        'deid: No known PHI was given (--expect): what identification missed cannot be known; 1 entity it found is still present.',
        'deid: FAIL: 1 of the 2 entities identification found is still present in the output',
      ],
    });
    expect(deidVerdict(two, undefined).exit).toBe(EXIT.pass);
  });

  it("names the mock's detector as the one that misses, never a real service's", () => {
    expect(mockCaveat('embedded-mock')).toBe(
      "The embedded mock's detector stands in for the service's model: what it misses is the mock's, not the service's.",
    );
    expect(mockCaveat('real')).toBeNull();
  });
});
