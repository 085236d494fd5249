import { describe, expect, it } from 'vitest';

import { locateAnnotations } from './planted.js';
import { textRecall } from './recall.js';
import { leaked, tallyText } from './tally.js';

const text = 'Seen: Priya Venkataraman at 918 Ridge Terrace, Evanston. Call 555-0100.';
const { planted } = locateAnnotations(text, [
  { text: 'Priya Venkataraman', kind: 'NAME' },
  { text: '918 Ridge Terrace, Evanston', kind: 'ADDRESS' },
  { text: '555-0100', kind: 'PHONE' },
]);

/** The replacements of `spans` (tagged), and the output they make. */
function obfuscate(spans: readonly [number, number][]): {
  text: string;
  replacements: { start: number; end: number; replacement: string }[];
} {
  const replacements = spans.map(([start, end]) => ({ start, end, replacement: '[X]' }));
  let out = '';
  let at = 0;
  for (const r of replacements) {
    out += text.slice(at, r.start) + r.replacement;
    at = r.end;
  }
  return { text: out + text.slice(at), replacements };
}

describe('textRecall', () => {
  it('reads a half-redacted name as partly in clear, by position', () => {
    const name = planted[0]!;
    const first = [name.start, name.start + 'Priya'.length] as [number, number];
    const rest = planted.slice(1).map((p) => [p.start, p.end] as [number, number]);
    const output = obfuscate([first, ...rest]);
    const r = textRecall({
      text,
      planted,
      entities: [{ start: first[0], end: first[1] }, ...rest.map(([start, end]) => ({ start, end }))],
      output,
      cuts: [],
    });
    expect(r.method).toBe('aligned');
    expect(r.items.map((i) => [i.kind, i.found, i.fate])).toEqual([
      ['NAME', false, 'partlyInClear'],
      ['ADDRESS', true, 'removed'],
      ['PHONE', true, 'removed'],
    ]);
    const t = tallyText(r, 'typical');
    expect(leaked(t.overall)).toBe(1);
    expect(t.byKind.NAME).toEqual({ planted: 1, found: 0, removed: 0, partlyInClear: 1, inClear: 0 });
  });

  it('falls back to the output words when the replacements do not rebuild the output', () => {
    const output = { text: 'Seen: [NAME] Venkataraman at [ADDRESS]. Call [PHONE].', replacements: [] };
    const r = textRecall({ text, planted, entities: [], output, cuts: [] });
    expect(r.method).toBe('text');
    expect(r.items.map((i) => i.fate)).toEqual(['partlyInClear', 'removed', 'removed']);
  });

  it('marks an item a cut crosses as straddling', () => {
    const phone = planted[2]!;
    const r = textRecall({ text, planted, entities: [], output: { text }, cuts: [phone.start + 3] });
    expect(r.items.map((i) => i.straddles)).toEqual([false, false, true]);
    expect(r.items.every((i) => i.fate === 'inClear')).toBe(true);
    expect(tallyText(r, 'long').straddling.inClear).toBe(1);
  });

  it('counts a replacement that writes the item back out as in clear', () => {
    const phone = planted[2]!;
    const output = {
      text: text.slice(0, phone.start) + '555-0100' + text.slice(phone.end),
      replacements: [{ start: phone.start, end: phone.end, replacement: '555-0100' }],
    };
    const r = textRecall({ text, planted: [phone], entities: [phone], output, cuts: [] });
    expect(r.items[0]!.fate).toBe('inClear');
  });

  it('reads an occurrence that was replaced as removed, though another occurrence of the same text is in clear', () => {
    const twice = 'Dr. Ann Lee saw Ann Lee.';
    const { planted: both } = locateAnnotations(twice, [{ text: 'Ann Lee', kind: 'NAME' }]);
    const output = {
      text: 'Dr. [NAME] saw Ann Lee.',
      replacements: [{ start: 4, end: 11, replacement: '[NAME]' }],
    };
    const r = textRecall({ text: twice, planted: both, entities: [{ start: 4, end: 11 }], output, cuts: [] });
    expect(r.method).toBe('aligned');
    expect(r.items.map((i) => [i.start, i.found, i.fate])).toEqual([
      [4, true, 'removed'],
      [16, false, 'inClear'],
    ]);
  });

  it('takes an annotation only where it stands as whole words, not inside a longer word or number', () => {
    const located = locateAnnotations('Ann, 91, Annual MRN 00482913; Ann-Marie.', [
      { text: 'Ann', kind: 'NAME' },
      { text: '91', kind: 'AGE' },
    ]);
    expect(located.planted.map((p) => [p.kind, p.start])).toEqual([
      ['NAME', 0],
      ['AGE', 5],
      ['NAME', 30],
    ]);
  });

  it('counts an item replaced where it stands as removed, though the same word shows elsewhere in the output', () => {
    // Two relatives share a surname; the detector finds one of them. The one it found is gone, the other is not.
    const family = 'Dr. Bauch saw Kris Bauch and Annette Bauchmann.';
    const first = { kind: 'NAME' as const, start: 4, end: 9 };
    const second = { kind: 'NAME' as const, start: 14, end: 24 };
    const output = {
      text: 'Dr. [NAME] saw Kris Bauch and Annette Bauchmann.',
      replacements: [{ start: 4, end: 9, replacement: '[NAME]' }],
    };
    const r = textRecall({ text: family, planted: [first, second], entities: [first], output, cuts: [] });
    expect(r.method).toBe('aligned');
    expect(r.items.map((i) => [i.found, i.fate])).toEqual([
      [true, 'removed'],
      [false, 'inClear'],
    ]);
  });

  it('lists an annotation the text does not hold apart, and finds every occurrence of one it does', () => {
    const located = locateAnnotations('Ann saw Ann.', [
      { text: 'Ann', kind: 'NAME' },
      { text: 'Bob', kind: 'NAME' },
    ]);
    expect(located.planted.map((p) => p.start)).toEqual([0, 8]);
    expect(located.missing).toEqual([{ text: 'Bob', kind: 'NAME' }]);
  });
});
