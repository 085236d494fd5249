import { describe, expect, it } from 'vitest';

import { ScenarioError } from '../core/errors.js';
import { parseScenario } from './load.js';
import { parseThreshold } from './threshold.js';

const scenario = (extra: string): string =>
  `name: s\ndescription: d\nphases: [{ name: a, duration: 1m, rpm: 60 }]\n${extra}`;

function problemsOf(text: string): readonly string[] {
  try {
    parseScenario(text, 's.yaml');
  } catch (error) {
    if (error instanceof ScenarioError) return error.problems;
    throw error;
  }
  throw new Error('expected the scenario to be refused');
}

describe('thresholds on the known PHI of a deid run', () => {
  it('parse as a rate or a count of items left in clear', () => {
    expect(parseThreshold('phi.rate(leaked) == 0')).toEqual({
      kind: 'phi',
      source: 'phi.rate(leaked) == 0',
      measure: 'rate',
      op: '==',
      value: 0,
      stage: 'phi',
    });
    expect(parseThreshold('phi.rate(leaked) < 0.1%')).toMatchObject({ measure: 'rate', op: '<', value: 0.001 });
    expect(parseThreshold('phi.count(leaked) == 0')).toMatchObject({ kind: 'phi', measure: 'count', value: 0 });
  });

  it('refuse what they cannot count, naming it', () => {
    expect(parseThreshold('phi.p(95) < 1s')).toEqual({
      problem: 'phi. takes rate(leaked) or count(leaked) (known PHI left in clear), got "p(95)"',
    });
    expect(parseThreshold('phi.rate(errors) < 1%')).toEqual({
      problem: 'phi. takes rate(leaked) or count(leaked) (known PHI left in clear), got "rate(errors)"',
    });
    expect(parseThreshold('rate(leaked) == 0')).toEqual({
      problem: 'rate(leaked) counts known PHI left in clear: write phi.rate(leaked)',
    });
    expect('problem' in parseThreshold('phi.rate(leaked) < 150%')).toBe(true);
  });

  it('need mode deid, and cannot stop a run', () => {
    expect(problemsOf(scenario('thresholds: { all: ["phi.rate(leaked) == 0"] }\n'))).toEqual([
      'thresholds.all[0]: expected a threshold without a stage: the phi stage is only in mode deid, got "phi.rate(leaked) == 0"',
    ]);
    expect(
      problemsOf(
        scenario('mode: deid\nthresholds: { all: [{ threshold: "phi.count(leaked) < 1", abortOnFail: true }] }\n'),
      )[0],
    ).toContain('abortOnFail: it watches identification requests as they end, not the phi stage');
  });
});
