/**
 * The scenario file, as a zod schema: the single source of validation, defaults and the published
 * JSON Schema (`loadproof schema`, scenarios/scenario.schema.json). Durations stay strings here
 * (what the user wrote) and are converted to milliseconds once, by `load`.
 */
import * as z from 'zod';
import { PROFILE_NAMES } from '../mock/index.js';
import { IDENTIFICATION_LIMITS, maxCharactersFor } from '../spec/index.js';
import { parseDurationMs } from './duration.js';
import { THRESHOLD_SYNTAX, parseThreshold } from './threshold.js';

const MAX_RPM = 60_000;
const MAX_TEXT_CHARS = maxCharactersFor(IDENTIFICATION_LIMITS.maxTextTokens);

const duration = (what: string) =>
  z.string({ error: `expected ${what} as a string like "90s", "5m" or "1m30s"` }).refine((text) => (parseDurationMs(text) ?? 0) > 0, {
    error: `expected ${what} like "90s", "5m" or "1m30s" (units ms, s, m, h), greater than zero`,
  });

const rpm = (what: string) =>
  z.number({ error: `expected ${what} as a number of requests per minute` }).positive({ error: `expected ${what} > 0 (requests per minute)` }).max(MAX_RPM, {
    error: `expected ${what} ≤ ${MAX_RPM} requests per minute`,
  });

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'expected the name of an environment variable (letters, digits, _)' });

const isoDate = z.iso.date({ error: 'expected an ISO date like 2026-11-02' });
const isoDateTime = z.iso.datetime({ offset: true, error: 'expected an ISO date-time with a zone, like 2026-11-20T09:00:00Z' });
const reference = z.string().trim().min(3, { error: 'expected a support reference (ticket or case id)' });

export const PhaseSchema = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z0-9][\w.-]{0,39}$/, { error: 'expected a phase name of letters, digits, ".", "_" or "-" (at most 40)' }),
    duration: duration('a duration'),
    rpm: rpm('rpm').optional().describe('Constant rate: requests per minute'),
    fromRpm: rpm('fromRpm').optional().describe('Ramp: rate at the start of the phase'),
    toRpm: rpm('toRpm').optional().describe('Ramp: rate at the end of the phase'),
    warmup: duration('warmup').optional().describe('Leading part of the phase left out of its steady-state verdict'),
  })
  .superRefine((phase, ctx) => {
    const ramp = phase.fromRpm !== undefined || phase.toRpm !== undefined;
    if (phase.rpm !== undefined && ramp) ctx.addIssue({ code: 'custom', path: ['rpm'], message: 'give either rpm (constant) or fromRpm and toRpm (ramp), not both' });
    else if (phase.rpm === undefined && !ramp) ctx.addIssue({ code: 'custom', path: ['rpm'], message: 'expected rpm (constant rate) or fromRpm and toRpm (ramp)' });
    else if (phase.fromRpm !== undefined && phase.toRpm === undefined) ctx.addIssue({ code: 'custom', path: ['toRpm'], message: 'a ramp needs toRpm (the rate at its end)' });
    else if (phase.toRpm !== undefined && phase.fromRpm === undefined) ctx.addIssue({ code: 'custom', path: ['fromRpm'], message: 'a ramp needs fromRpm (the rate at its start)' });
    const durationMs = parseDurationMs(phase.duration) ?? 0;
    const warmupMs = phase.warmup === undefined ? 0 : (parseDurationMs(phase.warmup) ?? 0);
    if (warmupMs >= durationMs && phase.warmup !== undefined) ctx.addIssue({ code: 'custom', path: ['warmup'], message: `expected warmup shorter than the phase (${phase.duration})` });
  });

const thresholdExpression = z.string().superRefine((text, ctx) => {
  const parsed = parseThreshold(text);
  if ('problem' in parsed) ctx.addIssue({ code: 'custom', message: parsed.problem });
});

const isMapping = (value: unknown): value is object => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Thresholds keyed by phase name: the user's keys become a Map as they are parsed, so a phase named
 * `constructor` or `__proto__` is a key like any other (an object would answer with its prototype's
 * members, and zod's record drops `__proto__` without a word), and every key written is checked.
 */
export const ByPhaseSchema = z.preprocess(
  (value) => (isMapping(value) && !(value instanceof Map) ? new Map(Object.entries(value)) : value),
  z.map(z.string(), z.array(thresholdExpression), { error: 'expected a mapping of phase names to lists of thresholds' }),
);

export const ScenarioSchema = z
  .strictObject({
    $schema: z.string().optional().describe('Path to scenario.schema.json, for editors'),
    name: z.string().regex(/^[A-Za-z0-9][\w.-]{0,63}$/, { error: 'expected a name of letters, digits, ".", "_" or "-" (at most 64); it names the report folder' }),
    description: z.string().min(1, { error: 'expected a sentence saying what the scenario checks' }),
    target: z
      .strictObject({
        environment: z.enum(['mock', 'sandbox', 'production']).default('mock').describe('mock = the embedded mock server (or a loopback one); sandbox and production are real'),
        baseUrl: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL like https://api.example.com' }).optional().describe('Absent with mock: start the embedded mock'),
        audience: z.url({ error: 'expected a URL' }).optional().describe('Token audience; defaults to baseUrl'),
        profile: z.enum(PROFILE_NAMES).optional().describe('Mock profile (mock only); default nominal'),
        credentials: z
          .strictObject({
            clientIdEnv: envName.default('LOADPROOF_CLIENT_ID'),
            clientSecretEnv: envName.default('LOADPROOF_CLIENT_SECRET'),
          })
          .default({ clientIdEnv: 'LOADPROOF_CLIENT_ID', clientSecretEnv: 'LOADPROOF_CLIENT_SECRET' })
          .describe('Names of the environment variables holding the credentials (never the secrets)'),
      })
      .superRefine((target, ctx) => {
        if (target.environment !== 'mock' && target.baseUrl === undefined) {
          ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: `a ${target.environment} target needs baseUrl` });
        }
        if (target.environment !== 'mock' && target.profile !== undefined) {
          ctx.addIssue({ code: 'custom', path: ['profile'], message: `a mock profile only applies to environment mock, not ${target.environment}` });
        }
      })
      .default({ environment: 'mock', credentials: { clientIdEnv: 'LOADPROOF_CLIENT_ID', clientSecretEnv: 'LOADPROOF_CLIENT_SECRET' } }),
    phases: z.array(PhaseSchema, { error: 'expected a list of phases' }).min(1, { error: 'expected at least one phase' }),
    arrivals: z
      .strictObject({
        process: z.enum(['constant', 'poisson']).default('constant').describe('constant spacing, or a seeded Poisson process at the same rate'),
        seed: z.int().min(0).default(1),
      })
      .default({ process: 'constant', seed: 1 }),
    payload: z
      .strictObject({
        source: z.literal('generated').default('generated').describe('Synthetic clinical notes with PHI'),
        minChars: z.int().min(20).max(MAX_TEXT_CHARS).default(400),
        maxChars: z.int().min(20).max(MAX_TEXT_CHARS, { error: `expected at most ${MAX_TEXT_CHARS} characters (1,024 model tokens at 1.2 per character)` }).default(850),
        seed: z.int().min(0).default(1),
      })
      .refine((p) => p.minChars <= p.maxChars, { path: ['minChars'], error: 'expected minChars ≤ maxChars' })
      .default({ source: 'generated', minChars: 400, maxChars: 850, seed: 1 }),
    on429: z
      .strictObject({
        policy: z.enum(['record', 'retry']).default('record').describe('record: each 429 is an outcome; retry: honour Retry-After, else exponential back-off with full jitter'),
        maxAttempts: z.int().min(1).max(10).default(4).describe('Attempts in all, the first included'),
        baseDelay: duration('baseDelay').default('1s'),
        maxDelay: duration('maxDelay').default('30s').describe('Longest wait before a retry; a Retry-After asking for more ends the retries'),
      })
      .default({ policy: 'record', maxAttempts: 4, baseDelay: '1s', maxDelay: '30s' }),
    timeout: duration('timeout').default('16s').describe('Client-side deadline per request; above the server’s 15 s so its 504 is seen'),
    maxInFlight: z.int().min(1).max(10_000).default(128).describe('Client safety cap (default: the documented 128); arrivals beyond it are counted as dropped'),
    window: duration('window').default('10s').describe('Timeline window (model time)'),
    thresholds: z
      .strictObject({
        documentedTargets: z.boolean().default(true).describe('Check each phase’s p95 against the spec’s target for its offered rate'),
        all: z.array(thresholdExpression).default([]).describe(`Checked on every phase: ${THRESHOLD_SYNTAX}`),
        byPhase: ByPhaseSchema.default(() => new Map()).describe('Checked on the named phase only'),
      })
      .default(() => ({ documentedTargets: true, all: [], byPhase: new Map() })),
    notice: z
      .strictObject({
        announcedOn: isoDate.describe('Day the load test was announced to support'),
        reference: reference,
        window: z.strictObject({ start: isoDateTime, end: isoDateTime }).optional().describe('Announced window the run must fall in'),
      })
      .optional()
      .describe('Advance notice of a sandbox load test (spec: at least two weeks ahead)'),
    coordination: z.strictObject({ reference }).optional().describe('Support reference for traffic above 200 rpm for more than 5 minutes'),
    limits: z
      .strictObject({
        sustainedRpm: rpm('sustainedRpm').optional(),
        burstRpm: rpm('burstRpm').optional(),
        burstMinutes: z.number().positive().optional(),
        spikeRpm: rpm('spikeRpm').optional(),
        spikeMinutes: z.number().positive().optional(),
        maxInFlight: z.int().positive().optional(),
        reference,
      })
      .optional()
      .describe('Limits raised by support for this customer, with the reference that granted them'),
  })
  .superRefine((scenario, ctx) => {
    const seen = new Map<string, number>();
    scenario.phases.forEach((phase, i) => {
      const first = seen.get(phase.name);
      if (first !== undefined) ctx.addIssue({ code: 'custom', path: ['phases', i, 'name'], message: `"${phase.name}" is already the name of phases[${first}]` });
      else seen.set(phase.name, i);
    });
    for (const name of scenario.thresholds.byPhase.keys()) {
      if (!seen.has(name)) ctx.addIssue({ code: 'custom', path: ['thresholds', 'byPhase', name], message: `no phase is named "${name}"` });
    }
  });

/** A scenario as written (durations as strings), with defaults applied. */
export type ScenarioInput = z.output<typeof ScenarioSchema>;
