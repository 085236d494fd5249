/**
 * The scenario file, as a zod schema: the single source of validation, defaults and the published
 * JSON Schema (`loadproof schema`, scenarios/scenario.schema.json). Durations stay strings here
 * (what the user wrote) and are converted to milliseconds once, by `load`.
 */
import * as z from 'zod';
import { DOCUMENT_KINDS, LENGTH_CLASSES } from '../texts/index.js';
import { PROFILE_NAMES, IDENTIFICATION_LIMITS, maxCharactersFor } from '../spec/index.js';
import { SCENARIO_BOUNDS as B, formatCount } from './bounds.js';
import { formatDuration, parseDurationMs } from './duration.js';
import { DEFAULT_ERROR_CHECK, ERROR_CHECK_SYNTAX, THRESHOLD_SYNTAX, abortOnFailProblem, parseErrorCheck, parseThreshold } from './threshold.js';

const MAX_TEXT_CHARS = maxCharactersFor(IDENTIFICATION_LIMITS.maxTextTokens);

/** Relative weights over `keys`: non-negative numbers, at least one of them above 0. */
const weights = <K extends string>(keys: readonly K[]) => {
  const weight = z.number({ error: 'expected a relative weight: a number ≥ 0' }).min(0, { error: 'expected a relative weight: a number ≥ 0' });
  return z
    .strictObject(Object.fromEntries(keys.map((k) => [k, weight.optional()])) as Record<K, z.ZodOptional<typeof weight>>)
    .refine((w) => Object.values(w).some((v) => typeof v === 'number' && v > 0), { error: `expected at least one of ${keys.join(', ')} with a weight above 0` });
};

/** A duration field: its format first (greater than zero), then its range, named in `range`. */
const duration = (what: string, maxMs: number, range: string, minMs = 0) =>
  z.string({ error: `expected ${what} as a string like "90s", "5m" or "1m30s"` }).superRefine((text, ctx) => {
    const ms = parseDurationMs(text);
    if (ms === undefined || !(ms > 0)) ctx.addIssue({ code: 'custom', message: `expected ${what} like "90s", "5m" or "1m30s" (units ms, s, m, h; each at most once, largest first), greater than zero` });
    // `!(ms <= maxMs)`: a duration of 400 digits is Infinity, and refused here.
    else if (ms < minMs || !(ms <= maxMs)) ctx.addIssue({ code: 'custom', message: range });
  });

const PHASE_RANGE = `expected a duration of at most ${formatDuration(B.phaseMs)} (7 days)`;

/** A rate: finite (zod refuses Infinity and NaN as numbers) and > 0; the plan's request bound does the rest. */
const rpm = (what: string) =>
  z
    .number({ error: (issue) => `expected ${what} as a ${typeof issue.input === 'number' ? 'finite ' : ''}number of requests per minute` })
    .positive({ error: `expected ${what} > 0 (requests per minute)` });

/** An integer in [min, max], with one message for every way to miss it (wrong type, fraction, infinite, out of range). */
const intRange = (min: number, max: number, note = '') => {
  const error = `expected an integer from ${min} to ${max}${note}`;
  return z.int({ error }).min(min, { error }).max(max, { error });
};

const seed = intRange(B.seed.min, B.seed.max, ' (2^32 − 1)');

// The loader words these refusals itself, without the value: a secret pasted here must not be echoed.
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/);

/** A URL that carries no user:password@ (the credentials come from elsewhere, and messages would show it). */
const NO_USERINFO = 'expected a URL without user:password@ (credentials come from the environment or --credentials; value not shown)';
const withoutUserinfo = (text: string): boolean => {
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
const isoDate = z.iso.date({ error: DATE_EXPECTED }).refine(inYears, { error: DATE_EXPECTED });
const DATE_TIME_EXPECTED = `expected an ISO date-time with a zone, like 2026-11-20T09:00:00Z, in the years ${B.years.min} to ${B.years.max}`;
const isoDateTime = z.iso.datetime({ offset: true, error: DATE_TIME_EXPECTED }).refine(inYears, { error: DATE_TIME_EXPECTED });
const LIMIT_MINUTES = `expected minutes > 0 and at most ${B.limitMinutes} (a day)`;
const limitMinutes = z.number({ error: LIMIT_MINUTES }).positive({ error: LIMIT_MINUTES }).max(B.limitMinutes, { error: LIMIT_MINUTES });

const reference = z.string().trim().min(3, { error: 'expected a support reference (ticket or case id)' });

/** The `notice:` block; also what `loadproof notice` checks its draft against, so it never drafts one refused here. */
export const NoticeSchema = z.strictObject({
  announcedOn: isoDate.describe('Day the load test was announced to support'),
  reference: reference,
  window: z
    .strictObject({ start: isoDateTime, end: isoDateTime })
    .superRefine((w, ctx) => {
      const [start, end] = [Date.parse(w.start), Date.parse(w.end)];
      // Only between two valid times: a bad start has its own message.
      if (Number.isFinite(start) && Number.isFinite(end) && end <= start) ctx.addIssue({ code: 'custom', path: ['end'], message: `expected an end after notice.window.start (${w.start})` });
    })
    .optional()
    .describe('Announced window the run must fall in'),
});

export const PhaseSchema = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z0-9][\w.-]{0,39}$/, { error: 'expected a phase name of letters, digits, ".", "_" or "-" (at most 40)' }),
    duration: duration('a duration', B.phaseMs, PHASE_RANGE),
    rpm: rpm('rpm').optional().describe('Constant rate: requests per minute'),
    fromRpm: rpm('fromRpm').optional().describe('Ramp: rate at the start of the phase'),
    toRpm: rpm('toRpm').optional().describe('Ramp: rate at the end of the phase'),
    warmup: duration('warmup', B.phaseMs, PHASE_RANGE).optional().describe('Leading part of the phase left out of its steady-state verdict'),
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

/** A threshold: its expression, or k6's object form `{ threshold, abortOnFail }`. */
const thresholdItem = z.union([
  thresholdExpression,
  z
    .strictObject({
      threshold: thresholdExpression,
      abortOnFail: z.boolean().default(false).describe('Stop sending once this check has failed beyond doubt (k6 style); an upper bound (< or <=) only'),
    })
    .superRefine((item, ctx) => {
      const parsed = parseThreshold(item.threshold);
      if (!('problem' in parsed) && item.abortOnFail) {
        const problem = abortOnFailProblem(parsed);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', path: ['abortOnFail'], message: problem });
      }
    }),
]);

const isMapping = (value: unknown): value is object => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Thresholds keyed by phase name: the user's keys become a Map as they are parsed, so a phase named
 * `constructor` or `__proto__` is a key like any other (an object would answer with its prototype's
 * members, and zod's record drops `__proto__` without a word), and every key written is checked.
 */
export const ByPhaseSchema = z.preprocess(
  (value) => (isMapping(value) && !(value instanceof Map) ? new Map(Object.entries(value)) : value),
  z.map(z.string(), z.array(thresholdItem), { error: 'expected a mapping of phase names to lists of thresholds' }),
);

export const ScenarioSchema = z
  .strictObject({
    $schema: z.string().optional().describe('Path to scenario.schema.json, for editors'),
    name: z.string().regex(/^[A-Za-z0-9][\w.-]{0,63}$/, { error: 'expected a name of letters, digits, ".", "_" or "-" (at most 64); it names the report folder' }),
    description: z.string().min(1, { error: 'expected a sentence saying what the scenario checks' }),
    target: z
      .strictObject({
        environment: z.enum(['mock', 'sandbox', 'production']).default('mock').describe('mock = the embedded mock server (or a loopback one); sandbox and production are real'),
        baseUrl: z
          .url({ protocol: /^https?$/, error: 'expected an http(s) URL like https://api.example.com' })
          .refine(withoutUserinfo, { error: NO_USERINFO })
          .optional().describe('Absent with mock: start the embedded mock'),
        audience: z.url({ error: 'expected a URL' }).refine(withoutUserinfo, { error: NO_USERINFO }).optional().describe('Token audience; defaults to baseUrl'),
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
        } else if (target.baseUrl !== undefined && target.profile !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: ['profile'],
            message: `the profile applies to the embedded mock (no baseUrl); the server at baseUrl runs its own (start it with loadproof mock --profile ${target.profile})`,
          });
        }
      })
      .default({ environment: 'mock', credentials: { clientIdEnv: 'LOADPROOF_CLIENT_ID', clientSecretEnv: 'LOADPROOF_CLIENT_SECRET' } }),
    phases: z
      .array(PhaseSchema, { error: 'expected a list of phases' })
      .min(1, { error: 'expected at least one phase' })
      .max(B.phases, { error: (issue) => `expected at most ${B.phases} phases, got ${(issue.input as unknown[]).length}` }),
    arrivals: z
      .strictObject({
        process: z.enum(['constant', 'poisson']).default('constant').describe('constant spacing, or a seeded Poisson process at the same rate'),
        seed: seed.default(1),
      })
      .default({ process: 'constant', seed: 1 }),
    payload: z
      .strictObject({
        source: z
          .string({ error: 'expected "generated", or the path of a folder of .txt files or of an .ndjson file' })
          .min(1, { error: 'expected "generated", or the path of a folder of .txt files or of an .ndjson file' })
          .default('generated')
          .describe('"generated": synthetic clinical texts with fake PHI; or the path (from the scenario file) of a folder of .txt files, one document each, or of an .ndjson file with a string "text" per line'),
        minChars: intRange(20, MAX_TEXT_CHARS).default(400).describe('Generated notes without `lengths`: the shortest, in characters'),
        maxChars: z
          .int()
          .min(20)
          .max(MAX_TEXT_CHARS, { error: `expected at most ${MAX_TEXT_CHARS} characters (1,024 model tokens at 1.2 per character)` })
          .default(850)
          .describe('Generated notes without `lengths`: the longest, in characters'),
        lengths: weights(LENGTH_CLASSES)
          .optional()
          .describe('Generated documents by length class, as relative weights: short (80–400 characters), typical (400–700), nearLimit (the last 80 characters under the split limit), long (2–8 × that limit: split before sending). At the default split (1,024 tokens, margin 0.1: 767 characters): typical 400–687, nearLimit 687–767, long 1,534–6,136'),
        kinds: weights(DOCUMENT_KINDS).optional().describe('Generated documents by kind, as relative weights (default: equal)'),
        split: z
          .strictObject({
            maxTokens: intRange(16, IDENTIFICATION_LIMITS.maxTextTokens, " (the spec's limit)").default(IDENTIFICATION_LIMITS.maxTextTokens).describe('The per-request limit, in estimated model tokens'),
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
      .default({ source: 'generated', minChars: 400, maxChars: 850, split: { maxTokens: IDENTIFICATION_LIMITS.maxTextTokens, margin: 0.1 }, seed: 1 }),
    mode: z
      .enum(['identification', 'deid'])
      .default('identification')
      .describe('identification: each arrival is one PHI Identification request; deid: each arrival is one document through the chain (split, identify each piece, obfuscate), and rates are documents per minute'),
    deid: z
      .strictObject({
        concurrency: intRange(1, 64).default(4).describe("A document's pieces identified at once; 1 = one after another"),
        style: z.enum(['tag', 'mask']).default('tag').describe('Obfuscation: [TYPE] tags, or masks of the same length'),
      })
      .default({ concurrency: 4, style: 'tag' })
      .describe('mode deid: how each document goes through the chain'),
    on429: z
      .strictObject({
        policy: z.enum(['record', 'retry']).default('record').describe('record: each 429 is an outcome; retry: honour Retry-After, else exponential back-off with full jitter'),
        maxAttempts: intRange(1, 10).default(4).describe('Attempts in all, the first included'),
        baseDelay: duration('baseDelay', B.maxDelayMs, `expected a duration of at most ${formatDuration(B.maxDelayMs)}`).default('1s'),
        maxDelay: duration('maxDelay', B.maxDelayMs, `expected a duration of at most ${formatDuration(B.maxDelayMs)}`)
          .default('30s')
          .describe('Longest wait before a retry; a Retry-After asking for more ends the retries'),
      })
      .superRefine((on429, ctx) => {
        const [base, max] = [parseDurationMs(on429.baseDelay), parseDurationMs(on429.maxDelay)];
        if (base !== undefined && max !== undefined && base > max) ctx.addIssue({ code: 'custom', path: ['baseDelay'], message: `expected baseDelay ≤ maxDelay (${on429.maxDelay})` });
      })
      .default({ policy: 'record', maxAttempts: 4, baseDelay: '1s', maxDelay: '30s' }),
    timeout: duration('timeout', B.timeoutMs.max, `expected a timeout from ${formatDuration(B.timeoutMs.min)} to ${formatDuration(B.timeoutMs.max)}`, B.timeoutMs.min)
      .default('16s').describe('Client-side deadline per request; above the server’s 15 s so its 504 is seen'),
    maxInFlight: intRange(1, B.maxInFlight).default(128).describe('Client safety cap (default: the documented 128); arrivals beyond it are counted as dropped'),
    window: duration('window', B.windowMs.max, `expected a window from ${formatDuration(B.windowMs.min)} to ${formatDuration(B.windowMs.max)}`, B.windowMs.min)
      .default('10s').describe('Timeline window (model time)'),
    thresholds: z
      .strictObject({
        documentedTargets: z.boolean().default(true).describe('Check each phase’s p95 against the spec’s target for its offered rate'),
        errors: z
          .string()
          .superRefine((text, ctx) => {
            const parsed = parseErrorCheck(text);
            if (parsed !== null && 'problem' in parsed) ctx.addIssue({ code: 'custom', message: parsed.problem });
          })
          .default(DEFAULT_ERROR_CHECK)
          .describe(`Every phase’s error check (k6’s http_req_failed): ${ERROR_CHECK_SYNTAX}; default "${DEFAULT_ERROR_CHECK}"`),
        all: z.array(thresholdItem).default([]).describe(`Checked on every phase: ${THRESHOLD_SYNTAX}; or {threshold, abortOnFail}`),
        byPhase: ByPhaseSchema.default(() => new Map()).describe('Checked on the named phase only'),
      })
      .default(() => ({ documentedTargets: true, errors: DEFAULT_ERROR_CHECK, all: [], byPhase: new Map() })),
    notice: NoticeSchema.optional()
      .describe('Advance notice of a sandbox load test (spec: at least two weeks ahead)'),
    coordination: z.strictObject({ reference }).optional().describe('Support reference for traffic above 200 rpm for more than 5 minutes'),
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
    // The chain's seams need pieces at least twice their reach (src/texts/seams.ts: 128 characters).
    const pieceChars = maxCharactersFor(Math.floor(scenario.payload.split.maxTokens * (1 - scenario.payload.split.margin)));
    if (scenario.mode === 'deid' && pieceChars < 256) {
      ctx.addIssue({ code: 'custom', path: ['payload', 'split'], message: `expected pieces of at least 256 characters in mode deid (room for the seams that find an entity straddling a cut), got ${pieceChars}` });
    }
    // A threshold on the obfuscation or document stage needs the chain.
    if (scenario.mode !== 'deid') {
      const lists: [(string | number)[], readonly (string | { readonly threshold: string })[]][] = [
        [['thresholds', 'all'], scenario.thresholds.all],
        ...[...scenario.thresholds.byPhase].map(([name, list]): [(string | number)[], typeof list] => [['thresholds', 'byPhase', name], list]),
      ];
      for (const [path, list] of lists) {
        list.forEach((item, i) => {
          const text = typeof item === 'string' ? item : item.threshold;
          const parsed = parseThreshold(text);
          if (!('problem' in parsed) && parsed.stage !== undefined) {
            ctx.addIssue({ code: 'custom', path: [...path, i], message: `expected a threshold without a stage: the ${parsed.stage} stage is only in mode deid` });
          }
        });
      }
    }
    checkPlanSize(scenario, ctx);
  });

/**
 * The plan's size, from the phases alone, before any arrival is generated: the requests it plans
 * (a phase plans ⌈Λ⌉ = ⌈(fromRpm + toRpm) / 2 × its minutes⌉) and the timeline windows it needs.
 */
function checkPlanSize(scenario: { phases: readonly z.output<typeof PhaseSchema>[]; window: string }, ctx: z.RefinementCtx): void {
  let total = 0;
  let totalMs = 0;
  let most = { index: 0, requests: -1 };
  scenario.phases.forEach((phase, index) => {
    const ms = parseDurationMs(phase.duration) ?? 0;
    // Halves first: (1e308 + 1e308) / 2 would be Infinity.
    const requests = Math.ceil(((phase.rpm ?? phase.fromRpm ?? 0) / 2 + (phase.rpm ?? phase.toRpm ?? 0) / 2) * (ms / 60_000) - 1e-9);
    total += requests;
    totalMs += ms;
    if (requests > most.requests) most = { index, requests };
  });
  if (total > B.plannedRequests) {
    const name = scenario.phases[most.index]!.name;
    ctx.addIssue({
      code: 'custom',
      path: ['phases'],
      message: `expected at most ${formatCount(B.plannedRequests)} planned requests in all, got ${formatCount(total)} (phases[${most.index}] "${name}" plans the most: ${formatCount(most.requests)}); lower a rate or a duration`,
    });
  }
  const windowMs = parseDurationMs(scenario.window) ?? 0;
  if (windowMs > 0 && totalMs / windowMs > B.windows) {
    const minimumMs = Math.ceil(totalMs / B.windows / 1000) * 1000;
    ctx.addIssue({
      code: 'custom',
      path: ['window'],
      // The window may be the default, which the file does not show: say which.
      message: `expected at most ${formatCount(B.windows)} windows over the plan's ${formatDuration(totalMs)} (a window of at least ${formatDuration(minimumMs)} for this plan), got "${scenario.window}"`,
    });
  }
}

/** A scenario as written (durations as strings), with defaults applied. */
export type ScenarioInput = z.output<typeof ScenarioSchema>;
