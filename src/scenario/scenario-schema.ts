/**
 * The scenario file, as a zod schema: the single source of validation, defaults and the published
 * JSON Schema (`loadproof schema`, scenarios/scenario.schema.json). Durations stay strings here
 * (what the user wrote) and are converted to milliseconds once, by `load`. Its fields' builders are in
 * schema-fields.ts, the target in target-schema.ts, a phase in phase-schema.ts, thresholds in
 * threshold-schema.ts, the checks across fields in scenario-checks.ts.
 */
import * as z from 'zod';

import { SCENARIO_NAME } from '../core/index.js';
import { IDENTIFICATION_LIMITS } from '../spec/index.js';
import { DOCUMENT_KINDS, LENGTH_CLASSES } from '../texts/index.js';
import { SCENARIO_BOUNDS as B } from './bounds.js';
import { formatDuration, parseDurationMs } from './duration.js';
import { PhaseSchema } from './phase-schema.js';
import { checkScenario } from './scenario-checks.js';
import {
  duration,
  intRange,
  isoDate,
  isoDateTime,
  limitMinutes,
  MAX_TEXT_CHARS,
  reference,
  rpm,
  seed,
  weights,
} from './schema-fields.js';
import { TargetSchema } from './target-schema.js';
import { DEFAULT_ERROR_CHECK, ERROR_CHECK_SYNTAX, parseErrorCheck, THRESHOLD_SYNTAX } from './threshold.js';
import { ByPhaseSchema, thresholdItem } from './threshold-schema.js';

/** The `notice:` block; also what `loadproof notice` checks its draft against, so it never drafts one refused here. */
export const NoticeSchema = z.strictObject({
  announcedOn: isoDate.describe('Day the load test was announced to support'),
  reference: reference,
  window: z
    .strictObject({
      start: isoDateTime,
      end: isoDateTime,
      startBy: isoDateTime
        .optional()
        .describe('Latest start announced: a run starting later is refused, however short it has become'),
    })
    .superRefine((w, ctx) => {
      const [start, end] = [Date.parse(w.start), Date.parse(w.end)];
      // Only between two valid times: a bad start has its own message.
      if (Number.isFinite(start) && Number.isFinite(end) && end <= start)
        ctx.addIssue({
          code: 'custom',
          path: ['end'],
          message: `expected an end after notice.window.start (${w.start})`,
        });
      const startBy = w.startBy === undefined ? NaN : Date.parse(w.startBy);
      if (
        Number.isFinite(start) &&
        Number.isFinite(end) &&
        Number.isFinite(startBy) &&
        (startBy < start || startBy > end)
      )
        ctx.addIssue({
          code: 'custom',
          path: ['startBy'],
          message: `expected a latest start from notice.window.start (${w.start}) to notice.window.end (${w.end}), got ${w.startBy}`,
        });
    })
    .optional()
    .describe('Announced window the run must fall in'),
});
export const ScenarioSchema = z
  .strictObject({
    $schema: z.string().optional().describe('Path to scenario.schema.json, for editors'),
    name: z.string().regex(SCENARIO_NAME, {
      error: 'expected a name of letters, digits, ".", "_" or "-" (at most 64); it names the report folder',
    }),
    description: z.string().min(1, { error: 'expected a sentence saying what the scenario checks' }),
    target: TargetSchema.default({
      environment: 'mock',
      credentials: { clientIdEnv: 'LOADPROOF_CLIENT_ID', clientSecretEnv: 'LOADPROOF_CLIENT_SECRET' },
    }),
    phases: z
      .array(PhaseSchema, { error: 'expected a list of phases' })
      .min(1, { error: 'expected at least one phase' })
      .max(B.phases, {
        error: (issue) => `expected at most ${B.phases} phases, got ${(issue.input as unknown[]).length}`,
      }),
    arrivals: z
      .strictObject({
        process: z
          .enum(['constant', 'poisson'])
          .default('constant')
          .describe('constant spacing, or a seeded Poisson process at the same rate'),
        seed: seed.default(1),
      })
      .default({ process: 'constant', seed: 1 }),
    payload: z
      .strictObject({
        source: z
          .string({ error: 'expected "generated", or the path of a folder of .txt files or of an .ndjson file' })
          .min(1, { error: 'expected "generated", or the path of a folder of .txt files or of an .ndjson file' })
          .default('generated')
          .describe(
            '"generated": synthetic clinical texts with fake PHI; or the path (from the scenario file) of a folder of .txt files, one document each, or of an .ndjson file with a string "text" per line',
          ),
        minChars: intRange(20, MAX_TEXT_CHARS)
          .default(400)
          .describe('Generated notes without `lengths`: the shortest, in characters'),
        maxChars: z
          .int()
          .min(20)
          .max(MAX_TEXT_CHARS, {
            error: `expected at most ${MAX_TEXT_CHARS} characters (1,024 model tokens at 1.2 per character)`,
          })
          .default(850)
          .describe('Generated notes without `lengths`: the longest, in characters'),
        lengths: weights(LENGTH_CLASSES)
          .optional()
          .describe(
            'Generated documents by length class, as relative weights: short (80–400 characters), typical (400–700), nearLimit (the last 80 characters under the split limit), long (2–8 × that limit: split before sending). At the default split (1,024 tokens, margin 0.1: 767 characters): typical 400–687, nearLimit 687–767, long 1,534–6,136',
          ),
        kinds: weights(DOCUMENT_KINDS)
          .optional()
          .describe('Generated documents by kind, as relative weights (default: equal)'),
        split: z
          .strictObject({
            maxTokens: intRange(16, IDENTIFICATION_LIMITS.maxTextTokens, " (the spec's limit)")
              .default(IDENTIFICATION_LIMITS.maxTextTokens)
              .describe('The per-request limit, in estimated model tokens'),
            margin: z
              .number({ error: 'expected a fraction from 0 to 0.9' })
              .min(0, { error: 'expected a fraction from 0 to 0.9' })
              .max(0.9, { error: 'expected a fraction from 0 to 0.9' })
              .default(0.1)
              .describe('Share of maxTokens kept free: the token count is an estimate'),
          })
          .refine((sp) => Math.floor(sp.maxTokens * (1 - sp.margin)) >= 3, {
            error: (issue) => {
              const sp = issue.input as { maxTokens: number; margin: number };
              return `expected maxTokens × (1 − margin) of at least 3 estimated tokens (two characters), got ${sp.maxTokens} × (1 − ${sp.margin}) = ${Math.floor(sp.maxTokens * (1 - sp.margin))}`;
            },
          })
          .default({ maxTokens: IDENTIFICATION_LIMITS.maxTextTokens, margin: 0.1 })
          .describe('Texts over the limit are split at paragraph, line, sentence, then word boundaries'),
        seed: seed.default(1),
      })
      .refine((p) => p.minChars <= p.maxChars, { path: ['minChars'], error: 'expected minChars ≤ maxChars' })
      .refine((p) => p.source === 'generated' || (p.lengths === undefined && p.kinds === undefined), {
        path: ['lengths'],
        error: 'expected lengths and kinds only with source "generated" (they shape generated documents)',
      })
      .default({
        source: 'generated',
        minChars: 400,
        maxChars: 850,
        split: { maxTokens: IDENTIFICATION_LIMITS.maxTextTokens, margin: 0.1 },
        seed: 1,
      }),
    mode: z
      .enum(['identification', 'deid'])
      .default('identification')
      .describe(
        'identification: each arrival is one PHI Identification request; deid: each arrival is one document through the chain (split, identify each piece, obfuscate), and rates are documents per minute',
      ),
    deid: z
      .strictObject({
        concurrency: intRange(1, 64)
          .default(4)
          .describe("A document's pieces identified at once; 1 = one after another"),
        style: z.enum(['tag', 'mask']).default('tag').describe('Obfuscation: [TYPE] tags, or masks of the same length'),
      })
      .default({ concurrency: 4, style: 'tag' })
      .describe('mode deid: how each document goes through the chain'),
    on429: z
      .strictObject({
        policy: z
          .enum(['record', 'retry'])
          .default('record')
          .describe(
            'record: each 429 is an outcome; retry: honour Retry-After, else exponential back-off with full jitter',
          ),
        maxAttempts: intRange(1, 10).default(4).describe('Attempts in all, the first included'),
        baseDelay: duration(
          'baseDelay',
          B.maxDelayMs,
          `expected a duration of at most ${formatDuration(B.maxDelayMs)}`,
        ).default('1s'),
        maxDelay: duration('maxDelay', B.maxDelayMs, `expected a duration of at most ${formatDuration(B.maxDelayMs)}`)
          .default('30s')
          .describe('Longest wait before a retry; a Retry-After asking for more ends the retries'),
      })
      .superRefine((on429, ctx) => {
        const [base, max] = [parseDurationMs(on429.baseDelay), parseDurationMs(on429.maxDelay)];
        if (base !== undefined && max !== undefined && base > max)
          ctx.addIssue({
            code: 'custom',
            path: ['baseDelay'],
            message: `expected baseDelay ≤ maxDelay (${on429.maxDelay})`,
          });
      })
      .default({ policy: 'record', maxAttempts: 4, baseDelay: '1s', maxDelay: '30s' }),
    timeout: duration(
      'timeout',
      B.timeoutMs.max,
      `expected a timeout from ${formatDuration(B.timeoutMs.min)} to ${formatDuration(B.timeoutMs.max)}`,
      B.timeoutMs.min,
    )
      .default('16s')
      .describe('Client-side deadline per request; above the server’s 15 s so its 504 is seen'),
    maxInFlight: intRange(1, B.maxInFlight)
      .default(128)
      .describe('Client safety cap (default: the documented 128); arrivals beyond it are counted as dropped'),
    window: duration(
      'window',
      B.windowMs.max,
      `expected a window from ${formatDuration(B.windowMs.min)} to ${formatDuration(B.windowMs.max)}`,
      B.windowMs.min,
    )
      .default('10s')
      .describe('Timeline window (model time)'),
    thresholds: z
      .strictObject({
        documentedTargets: z
          .boolean()
          .default(true)
          .describe('Check each phase’s p95 against the spec’s target for its offered rate'),
        errors: z
          .string()
          .superRefine((text, ctx) => {
            const parsed = parseErrorCheck(text);
            if (parsed !== null && 'problem' in parsed) ctx.addIssue({ code: 'custom', message: parsed.problem });
          })
          .default(DEFAULT_ERROR_CHECK)
          .describe(
            `Every phase’s error check (k6’s http_req_failed): ${ERROR_CHECK_SYNTAX}; default "${DEFAULT_ERROR_CHECK}"`,
          ),
        all: z
          .array(thresholdItem)
          .default([])
          .describe(`Checked on every phase: ${THRESHOLD_SYNTAX}; or {threshold, abortOnFail}`),
        byPhase: ByPhaseSchema.default(() => new Map()).describe('Checked on the named phase only'),
      })
      .default(() => ({ documentedTargets: true, errors: DEFAULT_ERROR_CHECK, all: [], byPhase: new Map() })),
    notice: NoticeSchema.optional().describe('Advance notice of a sandbox load test (spec: at least two weeks ahead)'),
    coordination: z
      .strictObject({ reference })
      .optional()
      .describe('Support reference for traffic above 200 rpm for more than 5 minutes'),
    limits: z
      .strictObject({
        sustainedRpm: rpm('sustainedRpm').optional(),
        burstRpm: rpm('burstRpm').optional(),
        burstMinutes: limitMinutes.optional(),
        spikeRpm: rpm('spikeRpm').optional(),
        spikeMinutes: limitMinutes.optional(),
        maxInFlight: intRange(1, B.maxInFlight).optional(),
        reference,
      })
      .optional()
      .describe('Limits raised by support for this customer, with the reference that granted them'),
  })
  .superRefine(checkScenario);

/** A scenario as written (durations as strings), with defaults applied. */
export type ScenarioInput = z.output<typeof ScenarioSchema>;
