/**
 * The part of a run's summary.json that a trend reads, checked field by field: a summary is someone else's file (a CI
 * artefact, a folder attached to a ticket), so a bad one is a reason to skip its run, never a TypeError. Fields the
 * trend does not read are not checked, so summaries of schema versions 3 to 5 are read alike.
 */
import * as z from 'zod';

import { PHASE_NAME, SCENARIO_NAME } from '../core/index.js';

/**
 * Bounds far above anything a run writes (a phase is at most 7 days, a plan 10,000,000 requests, the time scale at
 * most 1000, a request's deadline 10 minutes of wall time): a figure beyond them was not written by loadproof, and
 * would be printed or plotted as nonsense (a p95 of 1e305 s).
 */
const LIMITS = { count: 1e12, latencyMs: 1e10, rpm: 1e9, durationS: 1e8, lagMs: 1e10 } as const;

const count = z.number().int().min(0).max(LIMITS.count);
const finite = z.number().refine(Number.isFinite, 'expected a finite number');
/** Text the trend prints: no line breaks, bidi overrides or other invisible characters. */
const plain = z
  .string()
  .max(200)
  .regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]*$/u, { error: 'expected text without control or invisible characters' });
const scenarioName = z.string().regex(SCENARIO_NAME, {
  error: 'expected a scenario name of letters, digits, ".", "_" or "-" (at most 64), as a scenario file gives it',
});
const phaseName = z.string().regex(PHASE_NAME, {
  error: 'expected a phase name of letters, digits, ".", "_" or "-" (at most 40), as a scenario file gives it',
});
/** A latency figure as summary.json writes it: model ms, null without data, "unanswered" on a stand-in value. */
const latency = z.union([z.number().min(0).max(LIMITS.latencyMs), z.null(), z.literal('unanswered')]);

const check = z.object({
  id: plain,
  phase: phaseName.nullable(),
  band: plain.optional(),
  interval: z.tuple([latency, latency]).nullable(),
});

const phase = z.object({
  name: phaseName,
  durationS: finite.min(0).max(LIMITS.durationS),
  offeredRpm: finite.min(0).max(LIMITS.rpm),
  // Since schemaVersion 5; computed from outcomes.ok for an older summary.
  goodputRpm: finite.min(0).max(LIMITS.rpm).nullable().optional(),
  sent: count,
  outcomes: z.object({ ok: count, http_429: count, http_504: count, http_other: count }),
  errors: z.record(plain, count),
  sendLagMs: z.object({ max: finite.min(0).max(LIMITS.lagMs).nullable() }),
  steadyLatencyMs: z.object({ count, p95: latency }),
  target: z.object({ band: plain, p95Ms: finite.min(0).max(LIMITS.latencyMs) }).nullable(),
});

export const trendSummary = z.object({
  schemaVersion: z.number().int().min(3).max(5),
  scenario: scenarioName,
  planIdentity: plain,
  environment: plain,
  target: z.object({ profile: plain.nullable().optional() }),
  timeScale: finite.min(1).max(1000),
  startedAt: z.iso.datetime({ offset: true }),
  partial: z.boolean(),
  // A run stopped early: by a signal (interrupted), a failure or a threshold (stopped). Older summaries lack them.
  interrupted: z.boolean().optional(),
  stopped: z.object({ by: plain }).nullable().optional(),
  verdict: z.object({
    status: z.enum(['pass', 'fail', 'inconclusive']),
    notes: z.array(z.string().max(64 * 1024)).max(10_000),
    checks: z.array(check).max(100_000),
  }),
  generator: z.object({
    eventLoopDelayP99Ms: finite.min(0).max(LIMITS.lagMs).nullable(),
    eventLoopDelayMaxMs: finite.min(0).max(LIMITS.lagMs).nullable(),
  }),
  phases: z.array(phase).min(1).max(1000),
});

export type TrendSummary = z.infer<typeof trendSummary>;
export type TrendPhase = TrendSummary['phases'][number];

/** Where and what, for the first problem zod found: "phases.0.sent: expected number, received string". */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  return `${issue.path.length === 0 ? '(top)' : issue.path.join('.')}: ${issue.message}`;
}
