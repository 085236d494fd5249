/** Thresholds as a scenario writes them: an expression, or k6's object form; and the per-phase mapping of them. */
import * as z from 'zod';

import { abortOnFailProblem, parseThreshold } from './threshold.js';

const thresholdExpression = z.string().superRefine((text, ctx) => {
  const parsed = parseThreshold(text);
  if ('problem' in parsed) ctx.addIssue({ code: 'custom', message: parsed.problem });
});

/** A threshold: its expression, or k6's object form `{ threshold, abortOnFail }`. */
export const thresholdItem = z.union([
  thresholdExpression,
  z
    .strictObject({
      threshold: thresholdExpression,
      abortOnFail: z
        .boolean()
        .default(false)
        .describe('Stop sending once this check has failed beyond doubt (k6 style); an upper bound (< or <=) only'),
    })
    .superRefine((item, ctx) => {
      const parsed = parseThreshold(item.threshold);
      if (!('problem' in parsed) && item.abortOnFail) {
        const problem = abortOnFailProblem(parsed);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', path: ['abortOnFail'], message: problem });
      }
    }),
]);

const isMapping = (value: unknown): value is object =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Thresholds keyed by phase name: the user's keys become a Map as they are parsed, so a phase named
 * `constructor` or `__proto__` is a key like any other (an object would answer with its prototype's
 * members, and zod's record drops `__proto__` without a word), and every key written is checked.
 */
export const ByPhaseSchema = z.preprocess(
  (value) => (isMapping(value) && !(value instanceof Map) ? new Map(Object.entries(value)) : value),
  z.map(z.string(), z.array(thresholdItem), { error: 'expected a mapping of phase names to lists of thresholds' }),
);
