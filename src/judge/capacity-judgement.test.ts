import { describe, expect, it } from 'vitest';

import { type CapacityStepInput, goodputPlateau, judgeCapacity } from './capacity-judgement.js';

/** Steps of `rates` whose goodputs are `goodput`, each 2 minutes, p95 passed unless said. */
const steps = (
  rates: readonly number[],
  goodput: readonly number[],
  more: Partial<CapacityStepInput>[] = [],
): CapacityStepInput[] =>
  rates.map((r, i) => ({
    phase: `step-${r}`,
    fromRpm: r,
    toRpm: r,
    offeredRpm: r,
    goodputRpm: goodput[i]!,
    sent: r * 2,
    ended429: Math.max(0, Math.round((r - goodput[i]!) * 2)),
    p95Statuses: ['pass'],
    ...more[i],
  }));

const RATES = [100, 125, 150, 175, 200, 225, 250, 275, 300];

describe('the goodput plateau', () => {
  it('found where goodput stops climbing while the offered rate does (capacity-step against the nominal mock)', () => {
    const plateau = goodputPlateau(steps(RATES, [100, 125, 150, 175, 199.5, 100.5, 100, 100, 100]));
    expect(plateau).toEqual({
      fromPhase: 'step-225',
      goodputRpm: 100.1,
      fromOfferedRpm: 225,
      toOfferedRpm: 300,
      steps: 4,
    });
  });

  it('a plateau reached gradually starts where goodput stops climbing', () => {
    expect(goodputPlateau(steps(RATES, [100, 125, 148, 160, 163, 161, 164, 162, 163]))?.fromPhase).toBe('step-175');
  });

  it.each([
    ['goodput following the offered rate, with noise', [98, 127, 149, 176, 197, 228, 248, 277, 299]],
    ['only the last two steps flat (could be noise)', [100, 125, 150, 175, 200, 225, 250, 272, 271]],
    [
      'goodput still climbing slowly (a tenth of the offered rate and more)',
      [100, 110, 120, 130, 140, 150, 160, 170, 180],
    ],
  ])('none: %s', (_what, goodput) => {
    expect(goodputPlateau(steps(RATES, goodput))).toBeNull();
  });

  it('none when every step got what it was offered, however flat (equal rates offered)', () => {
    expect(goodputPlateau(steps([100, 100, 100, 150], [100, 100, 100, 150]))).toBeNull();
  });

  it('none when a step has no goodput (zero-length)', () => {
    expect(goodputPlateau(steps([100, 200, 300, 400], [100, 100, 100, 100], [{}, { goodputRpm: null }]))).toBeNull();
  });
});

describe('the highest rate served within its target', () => {
  const run = steps(RATES, [100, 125, 150, 175, 199.5, 100.5, 100, 100, 100]);

  it('with no 429s allowed (the default), a step that refused even one request does not hold', () => {
    const c = judgeCapacity(run, 0)!;
    expect(c.highestServedRpm).toBe(175);
    expect(c.highestServedPhase).toBe('step-175');
    expect(c.max429Share).toBe(0);
  });

  it('the share the reader chose: steps refusing up to it hold', () => {
    expect(judgeCapacity(run, 0.01)!.highestServedRpm).toBe(200);
    expect(judgeCapacity(run, 0.6)!.highestServedRpm).toBe(250);
    expect(judgeCapacity(run, 1)!.highestServedRpm).toBe(300);
  });

  it('a step whose p95 check failed or could not tell does not hold, nor one without a target', () => {
    const judged = steps(
      [100, 200, 300],
      [100, 200, 300],
      [{ p95Statuses: [] }, { p95Statuses: ['pass', 'inconclusive'] }, { p95Statuses: ['fail'] }],
    );
    expect(judgeCapacity(judged, 1)!.highestServedRpm).toBeNull();
  });

  it('null when the phases do not step the rate up', () => {
    expect(judgeCapacity(steps([100, 100], [100, 100]), 0)).toBeNull();
    expect(judgeCapacity(steps([300, 200, 100], [100, 100, 100]), 0)).toBeNull();
  });
});
