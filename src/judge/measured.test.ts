/**
 * A verdict needs something measured: a run whose plan held no request, or a phase none of
 * whose planned requests was answered (every one unsent, say), is never a pass — inconclusive, or a fail
 * where a check fails on what happened — whatever checks apply (no documented target, no error check).
 */
import { describe, expect, it } from 'vitest';

import { Slice } from '../recorder/index.js';
import { parseThreshold, type Threshold } from '../scenario/index.js';
import { LATENCY_BANDS } from '../spec/index.js';
import { judgeStart } from './bucket-start.js';
import type { EnvelopePhase } from './envelope.js';
import { evaluateVerdict } from './verdict.js';
import type { PhaseInput } from './verdict-input.js';

const NO_429: EnvelopePhase = {
  http429: 0,
  findings: 0,
  edge: 0,
  ifFullAtStart: 0,
  maxTokensAt429: null,
  marginTokens: 2.7,
  start: judgeStart({ known: 'nothing' }, 501, 100),
};
const ERRORS = parseThreshold('rate(errors) < 1%') as Threshold;

function sliceOf(outcomes: { ok?: number; unsent?: number; dropped?: number; timeout?: number }): Slice {
  const slice = new Slice();
  for (let i = 0; i < (outcomes.ok ?? 0); i++)
    slice.add({
      phase: 0,
      intendedAtMs: i,
      outcome: 'ok',
      firedAtMs: i,
      result: { status: 200, attempts: 1, lastSentAtMs: i, endAtMs: i + 100, retryAfterS: [] },
    });
  for (let i = 0; i < (outcomes.timeout ?? 0); i++)
    slice.add({
      phase: 0,
      intendedAtMs: i,
      outcome: 'timeout',
      firedAtMs: i,
      result: { attempts: 1, lastSentAtMs: i, endAtMs: i + 15_000, retryAfterS: [] },
    });
  for (let i = 0; i < (outcomes.unsent ?? 0); i++) slice.add({ phase: 0, intendedAtMs: i, outcome: 'unsent' });
  for (let i = 0; i < (outcomes.dropped ?? 0); i++)
    slice.add({ phase: 0, intendedAtMs: i, outcome: 'dropped', firedAtMs: i });
  return slice;
}

function phase(name: string, planned: number, slice: Slice, errorCheck: Threshold | null = ERRORS): PhaseInput {
  const band = LATENCY_BANDS[0]!;
  return {
    name,
    bands: [{ band, fromRpm: 60, toRpm: 60, steadyPlanned: planned, steady: slice }],
    planned,
    steady: slice,
    all: slice,
    envelope: NO_429,
    thresholds: [],
    errorCheck,
  };
}

const verdictOf = (phases: PhaseInput[], documentedTargets = true) =>
  evaluateVerdict({ phases, documentedTargets, generator: {} });

describe('a verdict needs something measured', () => {
  it('a plan with no request at all is inconclusive, never a pass, and says so', () => {
    for (const documented of [true, false]) {
      const v = verdictOf([phase('steady', 0, sliceOf({}))], documented);
      expect(v.status).toBe('inconclusive');
      expect(v.reasons).toEqual([
        'phase steady: something measured: the plan held no request (it planned none): nothing was measured, so nothing can pass',
      ]);
    }
  });

  it('several phases, none planning a request: inconclusive, naming them', () => {
    const v = verdictOf([phase('a', 0, sliceOf({})), phase('b', 0, sliceOf({}))]);
    expect(v.status).toBe('inconclusive');
    expect(v.reasons).toEqual(
      ['a', 'b'].map(
        (p) =>
          `phase ${p}: something measured: the plan held no request (none of its 2 phases planned one): nothing was measured, so nothing can pass`,
      ),
    );
  });

  it('a phase whose planned requests were all unsent is inconclusive, even with no target and no error check', () => {
    const v = verdictOf([phase('steady', 10, sliceOf({ unsent: 10 }), null)], false);
    expect(v.status).toBe('inconclusive');
    expect(v.reasons).toContain(
      'phase steady: an answer measured: none of its 10 planned requests was answered (0 sent, 0 dropped, 10 unsent)',
    );
  });

  it('a phase with nothing answered beside a phase that passes: inconclusive, not a pass', () => {
    const v = verdictOf([phase('good', 1000, sliceOf({ ok: 1000 })), phase('empty', 10, sliceOf({ unsent: 10 }))]);
    expect(v.status).toBe('inconclusive');
    expect(v.checks.find((c) => c.id === 'measured')).toMatchObject({ phase: 'empty', status: 'inconclusive' });
  });

  it('a fail on what happened stands: every request dropped, or timed out, fails the error check', () => {
    expect(verdictOf([phase('steady', 10, sliceOf({ dropped: 10 }))]).status).toBe('fail');
    expect(verdictOf([phase('steady', 10, sliceOf({ timeout: 10 }))]).status).toBe('fail');
  });

  it('a run that measured answers adds no check of its own (reports keep their checks)', () => {
    const v = verdictOf([phase('steady', 1000, sliceOf({ ok: 1000 }))]);
    expect(v.checks.some((c) => c.id === 'measured')).toBe(false);
  });
});
