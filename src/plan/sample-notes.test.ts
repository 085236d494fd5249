/** The plan's sample counts agree with the verdict's order statistics, side by side, at every percentile tried. */
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { minimumSamples } from '../judge/quantile-interval.js';
import { parseScenario } from '../scenario/index.js';
import { buildPlan } from './build-plan.js';
import { minimumSamplesFor, sampleNotes } from './sample-notes.js';

describe('minimumSamplesFor', () => {
  it.each([50, 75, 90, 95, 97.5, 99, 99.5, 99.9])('p(%s): the count the judge needs for each bound', (pct) => {
    for (const side of ['lower', 'upper'] as const)
      expect(minimumSamplesFor(pct, side), side).toBe(minimumSamples(pct / 100, side));
  });

  it('p(95) needs 72 samples for an upper bound, p(99) 368', () => {
    expect(minimumSamplesFor(95, 'upper')).toBe(72);
    expect(minimumSamplesFor(99, 'upper')).toBe(368);
  });
});

describe('sampleNotes', () => {
  const capacityStep = (extra: string): string =>
    readFileSync(new URL('../../scenarios/capacity-step.yaml', import.meta.url), 'utf8') + extra;
  const notesOf = (text: string): string[] =>
    sampleNotes(buildPlan(parseScenario(text, 'capacity-step.yaml'), { timeScale: 1 }));

  it('counts the steady requests the bucket is predicted to refuse out of the sample (429s are not in the p95)', () => {
    // step-300: 500 steady requests, of which the bucket is predicted to refuse most; 368 answers are needed.
    const notes = notesOf(capacityStep('thresholds:\n  byPhase:\n    step-300: ["p(99) < 5s"]\n'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^phase step-300: threshold "p\(99\) < 5s"/);
    expect(notes[0]).toMatch(/predicted 429/);
    const [, answered] = /at most (\d+) requests/.exec(notes[0]!) ?? [];
    expect(Number(answered)).toBeLessThan(368);
  });

  it('says nothing where the predicted 429s leave enough answers', () => {
    expect(notesOf(capacityStep('thresholds:\n  byPhase:\n    step-100: ["p(95) < 5s"]\n'))).toEqual([]);
  });
});
