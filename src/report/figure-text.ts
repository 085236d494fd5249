/**
 * How the report writes a figure: a time in ms, a UTC time, a count with its noun, a p95 with its interval, the kinds
 * of 429.
 */
import { formatMs } from '../core/index.js';
import type { Counts429 } from './capacity.js';

export const ms = (v: number | null | 'unanswered' | undefined): string =>
  v === null || v === undefined ? '—' : v === 'unanswered' ? 'unanswered' : formatMs(v);
export const utc = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
export const errorsOf = (p: { errors: Record<string, number>; outcomes: { http_other: number } }): number =>
  Object.values(p.errors).reduce((a, b) => a + b, 0) + p.outcomes.http_other;
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** A p95 and its 95 % interval, as the verdict judged it. */
export function p95Text(
  observed: number | null | 'unanswered' | undefined,
  interval: readonly (number | null | 'unanswered')[] | null | undefined,
): string {
  if (interval === null || interval === undefined) return ms(observed);
  const [low, high] = interval;
  // A side is null when the sample is too small to bound it.
  if ((low ?? null) === null && (high ?? null) === null) return `${ms(observed)} (too few to bound)`;
  if ((high ?? null) === null) return `${ms(observed)} (≥ ${ms(low)})`;
  if ((low ?? null) === null) return `${ms(observed)} (≤ ${ms(high)})`;
  return `${ms(observed)} (${ms(low)}–${ms(high)})`;
}

export function kindsOf429(a: Counts429): string {
  const parts = [
    a.rateLimit > 0 ? `${a.rateLimit} for the rate limit` : '',
    a.inFlight > 0 ? `${a.inFlight} for requests in flight` : '',
    a.other > 0 ? `${a.other} naming no known limit` : '',
  ].filter((s) => s !== '');
  return parts.join(', ');
}
