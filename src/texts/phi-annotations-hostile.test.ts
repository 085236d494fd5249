import { describe, expect, it } from 'vitest';

import { lineAnnotations } from './phi-annotations.js';

const text = "Seen: Margaret A. O'Donnell-Reyes, MRN 2093-4471-88.";

describe('payload.source phi: hostile annotations', () => {
  it('a text and kind given the wrong way round do not put the PHI in the message', () => {
    const r = lineAnnotations(text, [{ text: 'NAME', kind: "Margaret A. O'Donnell-Reyes" }], 'a.ndjson line 1: phi');
    expect('problems' in r && r.problems.join('\n')).not.toContain('Margaret');
  });

  it('a kind of 200,000 characters is not written out whole', () => {
    const r = lineAnnotations(text, [{ text: 'Margaret', kind: 'X'.repeat(200_000) }], 'a.ndjson line 1: phi');
    expect('problems' in r).toBe(true);
    expect('problems' in r && r.problems.join('\n').length).toBeLessThan(1000);
  });
});
