/**
 * Threshold expressions, k6-like: `p(95) < 2500ms`, `p(99) < 8s`, `rate(429) == 0`,
 * `rate(errors) < 1%`, `count(504) == 0`. Parsed once, when the scenario is loaded. In mode deid a
 * threshold may name its stage: `identification.p(95) < 2500ms` (the same as none), `obfuscation.p(95) < 500ms`,
 * `obfuscation.rate(429) == 0`, `document.p(95) < 8s` (end to end), `document.rate(errors) < 1%`; and on the known PHI
 * of its documents: `phi.rate(leaked) == 0`, `phi.rate(leaked) < 0.1%`, `phi.count(leaked) == 0` (items left in clear,
 * whole or in part).
 */
import { DURATION_FORM, parseDurationMs } from './duration.js';
import { DECIMAL_FORM, parseDecimal } from './number.js';

export type ThresholdOperator = '<' | '<=' | '==' | '>=' | '>';

/**
 * What `rate()` and `count()` can count: a status, a class of outcome. `errors` is every planned
 * request that failed, as k6's http_req_failed: an answer other than 2xx and 429, a transport error
 * (timeout, reset, refused, malformed, other), a request dropped or left unanswered — over the
 * requests sent or dropped.
 */
export const COUNTABLE = ['429', '504', '5xx', 'errors', 'dropped'] as const;
export type Countable = (typeof COUNTABLE)[number];

/** The stage of the deid chain a threshold is on; identification (the requests of events.ndjson) when absent. */
type ThresholdStage = 'identification' | 'obfuscation' | 'document' | 'phi';

export type Threshold = (
  | {
      readonly kind: 'percentile';
      readonly source: string;
      readonly percentile: number;
      readonly op: ThresholdOperator;
      readonly valueMs: number;
    }
  | {
      readonly kind: 'rate';
      readonly source: string;
      readonly of: Countable;
      readonly op: ThresholdOperator;
      readonly fraction: number;
    }
  | {
      readonly kind: 'count';
      readonly source: string;
      readonly of: Countable;
      readonly op: ThresholdOperator;
      readonly count: number;
    }
  | {
      /** Known PHI items left in clear (whole or in part) in the documents' output: a count, or a rate of the items. */
      readonly kind: 'phi';
      readonly source: string;
      readonly measure: 'rate' | 'count';
      readonly op: ThresholdOperator;
      /** A fraction (rate) or a whole number (count). */
      readonly value: number;
    }
) & {
  /** k6's abortOnFail: stop sending once the check has failed beyond doubt mid-run (an upper bound: `<` or `<=`). */
  readonly abortOnFail?: boolean;
  /** mode deid: obfuscation calls, whole documents or their known PHI instead of identification requests. */
  readonly stage?: 'obfuscation' | 'document' | 'phi';
};

/**
 * Why a threshold cannot carry abortOnFail, or undefined when it can: only an upper bound can fail beyond doubt before
 * the end.
 */
export function abortOnFailProblem(t: Threshold): string | undefined {
  if (t.stage !== undefined)
    return `abortOnFail: it watches identification requests as they end, not the ${t.stage} stage, got "${t.source}"`;
  return t.op === '<' || t.op === '<='
    ? undefined
    : `abortOnFail: only an upper bound (< or <=) can fail beyond doubt before the run ends, got "${t.source}"`;
}

const EXPRESSION =
  /^\s*(?:(identification|obfuscation|document|phi)\.)?(p|rate|count)\(\s*([^)]*?)\s*\)\s*(<=|>=|==|<|>)\s*(\S+)\s*$/;

/** The longest latency a percentile threshold may name (24 h): an unanswered request counts as far worse. */
const MAX_PERCENTILE_TARGET_MS = 24 * 3_600_000;

/** Every phase's error check unless the scenario sets `thresholds.errors`. */
export const DEFAULT_ERROR_CHECK = 'rate < 1%';

export const ERROR_CHECK_SYNTAX = '"rate <op> <n% or 0–1>", "count <op> <integer>", or "none"';

/**
 * `thresholds.errors`, in the k6 style: `rate < 1%`, `rate < 0.01`, `count == 0`, or `none` (no
 * error check). Returns the threshold on `errors`, null for none, or a sentence saying what is wrong.
 */
export function parseErrorCheck(text: string): Threshold | null | { readonly problem: string } {
  if (text.trim() === 'none') return null;
  const match = /^\s*(rate|count)\s*(<=|>=|==|<|>)\s*(\S+)\s*$/.exec(text);
  if (match === null) return { problem: `expected ${ERROR_CHECK_SYNTAX}` };
  const parsed = parseThreshold(`${match[1]}(errors) ${match[2]} ${match[3]}`);
  return 'problem' in parsed ? parsed : { ...parsed, source: `errors: ${text.trim()}` };
}

export const THRESHOLD_SYNTAX =
  'p(<0–100>) <op> <duration>, rate(<429|504|5xx|errors|dropped>) <op> <n% or 0–1>, or count(<…>) <op> <integer>, with <op> one of < <= == >= >; in mode deid optionally after a stage: identification., obfuscation. or document.; or phi.rate(leaked) / phi.count(leaked) on the known PHI of the documents';

/** Parses one expression; returns the threshold or a sentence saying what is wrong. */
export function parseThreshold(source: string): Threshold | { readonly problem: string } {
  const match = EXPRESSION.exec(source);
  if (match === null) return { problem: `expected ${THRESHOLD_SYNTAX}` };
  const [, stageName, fn, arg, op, value] = match as unknown as [
    string,
    ThresholdStage | undefined,
    'p' | 'rate' | 'count',
    string,
    ThresholdOperator,
    string,
  ];
  const stage = stageName === 'obfuscation' || stageName === 'document' ? { stage: stageName } : {};
  if (stageName === 'document' && fn !== 'p' && arg !== 'errors')
    return {
      problem: `document.${fn}(…) counts errors (documents that did not go through the whole chain), got "${arg}"`,
    };
  if (stageName === 'phi') return parsePhiThreshold(source, fn, arg, op, value);
  if (arg === 'leaked') return { problem: `${fn}(leaked) counts known PHI left in clear: write phi.${fn}(leaked)` };
  if (fn === 'p') {
    const percentile = parseDecimal(arg);
    if (percentile === undefined || !(percentile > 0 && percentile < 100))
      return { problem: `p(…) takes a percentile between 0 and 100 (exclusive), ${DECIMAL_FORM}, got "${arg}"` };
    const valueMs = parseDurationMs(value);
    if (valueMs === undefined || !Number.isFinite(valueMs))
      return { problem: `p(…) compares with a finite duration like 2500ms or 4s (${DURATION_FORM}), got "${value}"` };
    if (valueMs > MAX_PERCENTILE_TARGET_MS)
      return { problem: `p(…) compares with a duration of at most 24h, got "${value}"` };
    return { kind: 'percentile', source, percentile, op, valueMs, ...stage };
  }
  if (!(COUNTABLE as readonly string[]).includes(arg))
    return { problem: `${fn}(…) counts one of ${COUNTABLE.join(', ')}, got "${arg}"` };
  const of = arg as Countable;
  if (fn === 'rate') {
    const fraction = parseFraction(value);
    return 'problem' in fraction ? fraction : { kind: 'rate', source, of, op, fraction: fraction.value, ...stage };
  }
  const count = parseCount(value);
  return 'problem' in count ? count : { kind: 'count', source, of, op, count: count.value, ...stage };
}

/** `phi.rate(leaked) <op> <n% or 0–1>` or `phi.count(leaked) <op> <integer>`. */
function parsePhiThreshold(
  source: string,
  fn: 'p' | 'rate' | 'count',
  arg: string,
  op: ThresholdOperator,
  value: string,
): Threshold | { readonly problem: string } {
  if (fn === 'p' || arg !== 'leaked')
    return { problem: `phi. takes rate(leaked) or count(leaked) (known PHI left in clear), got "${fn}(${arg})"` };
  const parsed = fn === 'rate' ? parseFraction(value) : parseCount(value);
  if ('problem' in parsed) return parsed;
  return { kind: 'phi', source, measure: fn, op, value: parsed.value, stage: 'phi' };
}

function parseFraction(value: string): { readonly value: number } | { readonly problem: string } {
  const amount = parseDecimal(value.endsWith('%') ? value.slice(0, -1) : value);
  const fraction = amount === undefined ? undefined : value.endsWith('%') ? amount / 100 : amount;
  if (fraction === undefined || !(fraction >= 0 && fraction <= 1))
    return {
      problem: `rate(…) compares with a percentage like 1% or a fraction from 0 to 1, ${DECIMAL_FORM}, got "${value}"`,
    };
  return { value: fraction };
}

function parseCount(value: string): { readonly value: number } | { readonly problem: string } {
  const count = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(count))
    return { problem: `count(…) compares with a whole number ≥ 0 in decimal digits, got "${value}"` };
  return { value: count };
}
