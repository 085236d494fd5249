/** The plan's sample counts agree with the verdict's order statistics, side by side, at every percentile tried. */
import { describe, expect, it } from 'vitest';

import { minimumSamples } from '../judge/quantile-interval.js';
import { minimumSamplesFor } from './sample-notes.js';

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
