import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { isPhiKind, locateAnnotations, type PhiAnnotation, textRecall } from '../../phi/index.js';
import { findEntities } from './detect.js';
import { obfuscate } from './obfuscate.js';

/** Four clinical notes written for the test, with every item of PHI they hold beside them (note-N.phi.json). */
const NOTES = [1, 2, 3, 4].map((n) => {
  const at = (name: string): URL => new URL(`../../../test/fixtures/deid-notes/${name}`, import.meta.url);
  return {
    name: `note-${n}`,
    text: readFileSync(at(`note-${n}.txt`), 'utf8'),
    annotations: JSON.parse(readFileSync(at(`note-${n}.phi.json`), 'utf8')) as PhiAnnotation[],
  };
});

describe('the mock detector on realistic clinical notes', () => {
  it.each(NOTES)(
    '$name: finds every item of PHI, and obfuscation leaves none of it in clear',
    ({ text, annotations }) => {
      for (const a of annotations) expect(isPhiKind(a.kind), a.kind).toBe(true);
      const { planted, missing } = locateAnnotations(text, annotations);
      expect(missing).toEqual([]);
      const entities = findEntities(text);
      const output = obfuscate({ text, entities, style: 'tag' });
      const recall = textRecall({ text, planted, entities, output, cuts: [] });
      expect(recall.method).toBe('aligned');
      const notFound = recall.items.filter((i) => !i.found || i.fate !== 'removed');
      expect(notFound.map((i) => `${i.kind} ${text.slice(i.start, i.end)}`)).toEqual([]);
      expect(recall.items.length).toBe(planted.length);
    },
  );

  it('the notes hold the kinds of PHI the issue lists', () => {
    const kinds = new Set(NOTES.flatMap((n) => n.annotations.map((a) => a.kind)));
    for (const k of [
      'NAME',
      'ADDRESS',
      'ZIP',
      'MRN',
      'HEALTH_PLAN',
      'ACCOUNT',
      'IP',
      'DATE',
      'PHONE',
      'AGE',
    ] as const) {
      expect(kinds.has(k), k).toBe(true);
    }
    expect(Math.max(...NOTES.map((n) => n.text.length))).toBeGreaterThan(853); // one needs splitting
  });
});
