import { describe, expect, it } from 'vitest';

import { createRng } from '../../core/rng.js';
import { generateNote } from '../../texts/index.js';
import { detectPhi, entityOutputTokens, findEntities, OUTPUT_ENVELOPE_TOKENS } from './detect.js';

const NOTE =
  'Patient John Smith (MRN 12345678), DOB 04/12/1961, seen March 3, 2026 and 2026-04-01. ' +
  'Lives at 12 Maple Street, Salem, MA 01970; phone (555) 123-4567, email john.smith@example.org. ' +
  'SSN 123-45-6789, member HMO123456789. Referred by Dr. Okafor.';

describe('findEntities', () => {
  it('finds every kind of PHI with offsets that slice back to its text', () => {
    const entities = findEntities(NOTE);
    expect(entities.map((e) => [e.type, e.text])).toEqual([
      ['NAME', 'John Smith'],
      ['MRN', '12345678'],
      ['DATE', '04/12/1961'],
      ['DATE', 'March 3, 2026'],
      ['DATE', '2026-04-01'],
      ['ADDRESS', '12 Maple Street, Salem, MA 01970'],
      ['PHONE', '(555) 123-4567'],
      ['EMAIL', 'john.smith@example.org'],
      ['SSN', '123-45-6789'],
      ['HEALTH_PLAN', 'HMO123456789'],
      ['NAME', 'Dr. Okafor'],
    ]);
    for (const e of entities) {
      expect(NOTE.slice(e.start, e.end)).toBe(e.text);
      expect(e.score).toBeGreaterThan(0.8);
      expect(e.score).toBeLessThan(1);
    }
  });

  it('finds e-mail addresses exactly where the pattern scanned at every position does', () => {
    // Letters, local-part punctuation, '@' and spaces: nothing but e-mails can match, and '@' runs, failed
    // domains and addresses back to back are common. The oracle is the plain global scan.
    const email = /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g;
    const alphabet = 'ab_.+-@ @.';
    const rng = createRng(7);
    for (let i = 0; i < 3000; i++) {
      let text = '';
      for (let n = Math.floor(rng.next() * 40); n > 0; n--) text += alphabet[Math.floor(rng.next() * alphabet.length)];
      const expected = [...text.matchAll(email)].map((m) => [m.index, m[0]]);
      expect(
        findEntities(text).map((e) => [e.start, e.text]),
        JSON.stringify(text),
      ).toEqual(expected);
    }
    expect(findEntities('a@b.c x@y d.e@f-g.hi@j.k').map((e) => e.text)).toEqual(['a@b.c', 'd.e@f-g.hi']);
  });

  it('finds nothing in text without PHI', () => {
    expect(findEntities('Vitals stable. Plan: continue metformin 500 mg twice daily.')).toEqual([]);
  });
});

describe('detectPhi', () => {
  it('counts output tokens as the envelope plus each entity record', () => {
    const d = detectPhi(NOTE, 300);
    expect(d.truncated).toBe(false);
    expect(d.outputTokens).toBe(OUTPUT_ENVELOPE_TOKENS + d.entities.reduce((sum, e) => sum + entityOutputTokens(e), 0));
  });

  it('drops entities beyond the output cap and says it truncated', () => {
    const capped = detectPhi(NOTE, 60);
    expect(capped.truncated).toBe(true);
    expect(capped.outputTokens).toBeLessThanOrEqual(60);
    expect(capped.entities.length).toBeGreaterThan(0);
    expect(capped.entities.length).toBeLessThan(findEntities(NOTE).length);
  });
});

describe('detectPhi with a drop rate (the leaky profile)', () => {
  // Many distinct entities: one date a line, each in its own text as well as all in one.
  const lines = Array.from({ length: 4000 }, (_, i) => `Seen on ${1 + (i % 12)}/${1 + (i % 28)}/${1900 + (i % 120)}.`);
  const texts = Array.from({ length: 200 }, (_, t) => lines.slice(t * 20, t * 20 + 20).join(' '));

  it('leaves out about the share asked, the same ones for the same text', () => {
    let found = 0;
    let kept = 0;
    for (const text of texts) {
      const all = detectPhi(text, Number.POSITIVE_INFINITY).entities;
      const leaky = detectPhi(text, Number.POSITIVE_INFINITY, 0.01).entities;
      expect(detectPhi(text, Number.POSITIVE_INFINITY, 0.01).entities).toEqual(leaky);
      for (const e of leaky) expect(all).toContainEqual(e);
      found += all.length;
      kept += leaky.length;
    }
    expect(found).toBe(4000);
    // 1 % of 4,000 is 40; a hash, not a draw: the bounds only say "about 1 %", not a tolerance of chance.
    expect(found - kept).toBeGreaterThan(20);
    expect(found - kept).toBeLessThan(60);
  });

  it('leaves out nothing at rate 0 and everything at rate 1', () => {
    expect(detectPhi(NOTE, 300, 0)).toEqual(detectPhi(NOTE, 300));
    expect(detectPhi(NOTE, 300, 1).entities).toEqual([]);
  });
});

describe("the e-mail rule's hot path finds what the plain rule finds", () => {
  const emails = (text: string): [number, number][] =>
    [...text.matchAll(/\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g)].map((m) => [m.index, m.index + m[0].length]);

  it('over 2,000 generated notes', () => {
    const rng = createRng(7);
    for (let i = 0; i < 2000; i++) {
      const text = generateNote(rng);
      expect(
        findEntities(text)
          .filter((e) => e.type === 'EMAIL')
          .map((e) => [e.start, e.end]),
      ).toEqual(emails(text));
    }
  });
});
