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

describe('thresholds on a stage of the deid chain', () => {
  it('parse with their stage; identification. is the same as none', () => {
    expect(parseThreshold('document.p(95) < 8s')).toEqual({
      kind: 'percentile',
      source: 'document.p(95) < 8s',
      percentile: 95,
      op: '<',
      valueMs: 8000,
      stage: 'document',
    });
    expect(parseThreshold('obfuscation.rate(429) == 0')).toMatchObject({
      kind: 'rate',
      of: '429',
      stage: 'obfuscation',
    });
    expect(parseThreshold('identification.p(95) < 2500ms')).toEqual({
      kind: 'percentile',
      source: 'identification.p(95) < 2500ms',
      percentile: 95,
      op: '<',
      valueMs: 2500,
    });
    expect(parseThreshold('document.count(504) == 0')).toEqual({
      problem: 'document.count(…) counts errors (documents that did not go through the whole chain), got "504"',
    });
    expect('problem' in parseThreshold('session.p(95) < 1s')).toBe(true);
  });

  it('need mode deid, and cannot stop a run (abortOnFail watches identification requests)', () => {
    expect(problemsOf(scenario('thresholds: { all: ["document.p(95) < 8s"] }\n'))).toEqual([
      'thresholds.all[0]: expected a threshold without a stage: the document stage is only in mode deid, got "document.p(95) < 8s"',
    ]);
    expect(problemsOf(scenario('thresholds: { byPhase: { a: ["obfuscation.p(95) < 1s"] } }\n'))).toEqual([
      'thresholds.byPhase.a[0]: expected a threshold without a stage: the obfuscation stage is only in mode deid, got "obfuscation.p(95) < 1s"',
    ]);
    expect(
      problemsOf(
        scenario('mode: deid\nthresholds: { all: [{ threshold: "document.p(95) < 8s", abortOnFail: true }] }\n'),
      )[0],
    ).toContain('abortOnFail: it watches identification requests as they end, not the document stage');
    expect(
      parseScenario(
        scenario('mode: deid\nthresholds: { all: ["document.p(95) < 8s", "obfuscation.rate(errors) < 1%"] }\n'),
        's.yaml',
      ).thresholds.all,
    ).toHaveLength(2);
  });
});

describe('payload.split', () => {
  it('takes maxTokens (a count of model tokens, not a secret) and refuses a budget that holds no piece', () => {
    expect(
      parseScenario(scenario('payload: { split: { maxTokens: 512, margin: 0.2 } }\n'), 's.yaml').payload.split,
    ).toEqual({ maxTokens: 512, margin: 0.2 });
    expect(problemsOf(scenario('payload: { split: { maxTokens: 16, margin: 0.9 } }\n'))).toEqual([
      'payload.split: expected maxTokens × (1 − margin) of at least 3 estimated tokens (two characters), got 16 × (1 − 0.9) = 1',
    ]);
  });
});
