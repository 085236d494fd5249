/** A scenario's threshold on a phase: a percentile, a count or a rate of its requests, or of a deid stage's items. */
import type { Slice } from '../recorder/index.js';
import type { Countable, Threshold } from '../scenario/index.js';
import { type Check, compare } from './check.js';
import { judgePercentile, percentileCheck } from './percentile-check.js';
import { phiCheck } from './phi-check.js';
import type { GeneratorHealth, PhaseInput, StageInput } from './verdict-input.js';

export function countOf(slice: Slice, of: Countable): { count: number; base: number } {
  const o = slice.outcomes;
  const sent = slice.sent;
  switch (of) {
    case '429':
      return { count: o.http_429, base: sent };
    case '504':
      return { count: o.http_504, base: sent };
    case '5xx':
      return {
        count: Object.entries(slice.status).reduce((sum, [code, n]) => (Number(code) >= 500 ? sum + n : sum), 0),
        base: sent,
      };
    case 'errors':
      return { count: slice.failed, base: sent + o.dropped };
    case 'dropped':
      return { count: o.dropped, base: sent + o.dropped };
    default: {
      const unreachable: never = of;
      throw new Error(`unknown countable ${String(unreachable)}`);
    }
  }
}

/** A threshold on the phase's steady state (or, for a count or rate, on `slice`). */
export function thresholdCheck(
  phase: PhaseInput,
  t: Threshold,
  generator: GeneratorHealth,
  id = 'threshold',
  slice = phase.steady,
): Check {
  const base = { id, phase: phase.name, what: t.source };
  if (t.kind === 'phi') return phiCheck(base, phase.phi, t);
  if (t.stage === 'obfuscation' || t.stage === 'document') return stageCheck(base, phase.stages?.[t.stage], t);
  if (t.kind === 'percentile')
    return { ...base, ...percentileCheck(phase.steady, t.percentile, t.op, t.valueMs, generator) };
  const { count, base: of } = countOf(slice, t.of);
  if (t.kind === 'count') {
    return {
      ...base,
      status: compare(count, t.op, t.count) ? 'pass' : 'fail',
      observed: count,
      interval: null,
      reason: `count ${count}`,
    };
  }
  if (of === 0)
    return { ...base, status: 'inconclusive', observed: null, interval: null, reason: 'no request to take a rate of' };
  const rate = count / of;
  return {
    ...base,
    status: compare(rate, t.op, t.fraction) ? 'pass' : 'fail',
    observed: rate,
    interval: null,
    reason: `${count} of ${of} (${(rate * 100).toFixed(2)} %)`,
  };
}

/** A threshold on a stage of the deid chain: its latency judged on its interval, its counts as counted. */
function stageCheck(
  base: { id: string; phase: string; what: string },
  stage: StageInput | undefined,
  t: Exclude<Threshold, { readonly kind: 'phi' }>,
): Check {
  if (stage === undefined)
    return { ...base, status: 'inconclusive', observed: null, interval: null, reason: `no ${t.stage} was recorded` };
  if (t.kind === 'percentile') return { ...base, ...judgePercentile(stage.latency, t.percentile, t.op, t.valueMs) };
  const c = stage.counts;
  const count =
    t.of === '429'
      ? c.http_429
      : t.of === '504'
        ? c.http_504
        : t.of === '5xx'
          ? c.http_5xx
          : t.of === 'errors'
            ? c.errors
            : 0;
  const what = t.stage === 'document' ? 'documents' : 'calls';
  if (t.kind === 'count')
    return {
      ...base,
      status: compare(count, t.op, t.count) ? 'pass' : 'fail',
      observed: count,
      interval: null,
      reason: `count ${count}`,
    };
  if (c.total === 0)
    return { ...base, status: 'inconclusive', observed: null, interval: null, reason: `no ${what} to take a rate of` };
  const rate = count / c.total;
  return {
    ...base,
    status: compare(rate, t.op, t.fraction) ? 'pass' : 'fail',
    observed: rate,
    interval: null,
    reason: `${count} of ${c.total} ${what} (${(rate * 100).toFixed(2)} %)`,
  };
}
