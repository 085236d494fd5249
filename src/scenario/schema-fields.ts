/**
 * The fields a scenario file repeats (durations, rates, integers in a range, weights, dates, references),
 * each with one message for every way to miss it.
 */
import * as z from 'zod';

import { IDENTIFICATION_LIMITS, maxCharactersFor } from '../spec/index.js';
import { SCENARIO_BOUNDS as B } from './bounds.js';
import { formatDuration, parseDurationMs } from './duration.js';

export const MAX_TEXT_CHARS = maxCharactersFor(IDENTIFICATION_LIMITS.maxTextTokens);

/** Relative weights over `keys`: non-negative numbers, at least one of them above 0. */
export const weights = <K extends string>(keys: readonly K[]) => {
  const weight = z
    .number({ error: 'expected a relative weight: a number ≥ 0' })
    .min(0, { error: 'expected a relative weight: a number ≥ 0' });
  return z
    .strictObject(
      Object.fromEntries(keys.map((k) => [k, weight.optional()])) as Record<K, z.ZodOptional<typeof weight>>,
    )
    .refine((w) => Object.values(w).some((v) => typeof v === 'number' && v > 0), {
      error: `expected at least one of ${keys.join(', ')} with a weight above 0`,
    });
};

/** A duration field: its format first (greater than zero), then its range, named in `range`. */
export const duration = (what: string, maxMs: number, range: string, minMs = 0) =>
  z.string({ error: `expected ${what} as a string like "90s", "5m" or "1m30s"` }).superRefine((text, ctx) => {
    const ms = parseDurationMs(text);
    if (ms === undefined || !(ms > 0))
      ctx.addIssue({
        code: 'custom',
        message: `expected ${what} like "90s", "5m" or "1m30s" (units ms, s, m, h; each at most once, largest first), greater than zero`,
      });
    // `!(ms <= maxMs)`: a duration of 400 digits is Infinity, and refused here.
    else if (ms < minMs || !(ms <= maxMs)) ctx.addIssue({ code: 'custom', message: range });
  });

export const PHASE_RANGE = `expected a duration of at most ${formatDuration(B.phaseMs)} (7 days)`;

/** A rate: finite (zod refuses Infinity and NaN as numbers) and > 0; the plan's request bound does the rest. */
export const rpm = (what: string) =>
  z
    .number({
      error: (issue) =>
        `expected ${what} as a ${typeof issue.input === 'number' ? 'finite ' : ''}number of requests per minute`,
    })
    .positive({ error: `expected ${what} > 0 (requests per minute)` });

/**
 * An integer in [min, max], with one message for every way to miss it (wrong type, fraction, infinite, out of range).
 */
export const intRange = (min: number, max: number, note = '') => {
  const error = `expected an integer from ${min} to ${max}${note}`;
  return z.int({ error }).min(min, { error }).max(max, { error });
};

export const seed = intRange(B.seed.min, B.seed.max, ' (2^32 − 1)');

// The loader words these refusals itself, without the value: a secret pasted here must not be echoed.
export const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/);

/** A URL that carries no user:password@ (the credentials come from elsewhere, and messages would show it). */
export const NO_USERINFO =
  'expected a URL without user:password@ (credentials come from the environment or --credentials; value not shown)';
export const withoutUserinfo = (text: string): boolean => {
  try {
    const url = new URL(text);
    return url.username === '' && url.password === '';
  } catch {
    return true; // not a URL at all: z.url says so
  }
};

const inYears = (text: string): boolean => {
  const year = Number(text.slice(0, 4));
  return year >= B.years.min && year <= B.years.max;
};
const DATE_EXPECTED = `expected a real calendar date from ${B.years.min} to ${B.years.max}, like 2026-11-02`;
export const isoDate = z.iso.date({ error: DATE_EXPECTED }).refine(inYears, { error: DATE_EXPECTED });
const DATE_TIME_EXPECTED = `expected an ISO date-time with a zone, like 2026-11-20T09:00:00Z, in the years ${B.years.min} to ${B.years.max}`;
export const isoDateTime = z.iso
  .datetime({ offset: true, error: DATE_TIME_EXPECTED })
  .refine(inYears, { error: DATE_TIME_EXPECTED });
const LIMIT_MINUTES = `expected minutes > 0 and at most ${B.limitMinutes} (a day)`;
export const limitMinutes = z
  .number({ error: LIMIT_MINUTES })
  .positive({ error: LIMIT_MINUTES })
  .max(B.limitMinutes, { error: LIMIT_MINUTES });

export const reference = z.string().trim().min(3, { error: 'expected a support reference (ticket or case id)' });
