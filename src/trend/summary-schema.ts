/**
 * The part of a run's summary.json that a trend reads, checked field by field: a summary is someone else's file (a CI
 * artefact, a folder attached to a ticket), so a bad one is a reason to skip its run, never a TypeError. Fields the
 * trend does not read are not checked, so summaries of schema versions 3 to 5 are read alike.
 */
import * as z from 'zod';

const count = z.number().int().min(0);
const finite = z.number().refine(Number.isFinite, 'expected a finite number');
const name = z.string().min(1).max(200);
/** A latency figure as summary.json writes it: model ms, null without data, "unanswered" on a stand-in value. */
const latency = z.union([z.number().min(0), z.null(), z.literal('unanswered')]);

const check = z.object({
  id: z.string().max(200),
  phase: name.nullable(),
  band: z.string().max(200).optional(),
  interval: z.tuple([latency, latency]).nullable(),
});

const phase = z.object({
  name,
  durationS: finite.min(0),
  offeredRpm: finite.min(0),
  // Since schemaVersion 5; computed from outcomes.ok for an older summary.
  goodputRpm: finite.min(0).nullable().optional(),
  sent: count,
  outcomes: z.object({ ok: count, http_429: count, http_504: count, http_other: count }),
  errors: z.record(z.string().max(100), count),
  sendLagMs: z.object({ max: finite.min(0).nullable() }),
  steadyLatencyMs: z.object({ count, p95: latency }),
  target: z.object({ band: z.string().max(200), p95Ms: finite.min(0) }).nullable(),
});

export const trendSummary = z.object({
  schemaVersion: z.number().int().min(3).max(5),
  scenario: name,
  planIdentity: z.string().max(200),
  environment: z.string().max(200),
  target: z.object({ profile: z.string().max(200).nullable().optional() }),
  timeScale: finite.min(1),
  startedAt: z.iso.datetime({ offset: true }),
  partial: z.boolean(),
  verdict: z.object({
    status: z.enum(['pass', 'fail', 'inconclusive']),
    notes: z.array(z.string().max(64 * 1024)).max(10_000),
    checks: z.array(check).max(100_000),
  }),
  generator: z.object({
    eventLoopDelayP99Ms: finite.min(0).nullable(),
    eventLoopDelayMaxMs: finite.min(0).nullable(),
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
