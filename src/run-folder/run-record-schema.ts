/**
 * run.json checked field by field when a folder is read back (report, compare, merge): a hand-edited or
 * hostile one is refused (exit 2) naming the field, instead of a TypeError deep in the judge. Objects the
 * judge only carries to the reports (the guard's traffic, the payload record) are checked as objects.
 */
import * as z from 'zod';

import { UsageError } from '../core/index.js';
import type { RunRecord } from '../judge/index.js';
import { MsHistogram } from '../recorder/index.js';

const count = z.number().int().min(0);
const ms = z.number().min(0).refine(Number.isFinite, 'expected a finite number');
const text = z.string().max(64 * 1024);

/** Standard base64, padded, as Buffer#toString('base64') writes it (Buffer.from skips any other character silently). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * An HDR histogram as loadproof encodes it (V2, compressed, base64): decoded here, so the judge never meets a bad one.
 */
const histogram = z
  .string()
  .max(1024 * 1024)
  .superRefine((value, ctx) => {
    const why = !BASE64.test(value) || value === '' ? 'not base64' : MsHistogram.whyNotDecodable(value);
    if (why !== null)
      ctx.addIssue({
        code: 'custom',
        message: `${JSON.stringify(value.slice(0, 40))}${value.length > 40 ? '…' : ''}: ${why}, expected an HDR histogram (V2, compressed, base64) as loadproof writes it`,
      });
  });

/** mode deid: each document's pieces, base64 of 32-bit counts (run/plan-scenario.ts), each at least 1. */
const documentPieces = z.string().superRefine((value, ctx) => {
  const bytes = BASE64.test(value) ? Buffer.from(value, 'base64') : undefined;
  const counts =
    bytes === undefined || bytes.length === 0 || bytes.length % 4 !== 0
      ? undefined
      : new Uint32Array(new Uint8Array(bytes).buffer);
  const why =
    bytes === undefined
      ? 'not base64'
      : counts === undefined
        ? `${bytes.length} bytes, not a whole number of 32-bit counts`
        : counts.includes(0)
          ? 'a document of 0 pieces'
          : null;
  if (why !== null)
    ctx.addIssue({
      code: 'custom',
      message: `${JSON.stringify(value.slice(0, 40))}${value.length > 40 ? '…' : ''}: ${why}, expected each document's piece count (base64 of 32-bit counts, each ≥ 1) as loadproof writes it`,
    });
});

const host = z.object({
  node: text,
  os: text,
  cpu: text,
  commandLine: z.array(text).max(10_000),
  gitCommit: text.nullable(),
});

const guard = z.looseObject({
  allowed: z.boolean(),
  real: z.boolean(),
  startAt: text,
  plannedEndAt: text,
  traffic: z.looseObject({}),
  limits: z.looseObject({
    sustainedRpm: z.number(),
    burstRpm: z.number(),
    burstMinutes: z.number(),
    spikeRpm: z.number(),
    maxInFlight: z.number(),
    reference: text.nullable(),
  }),
  checks: z.array(z.looseObject({ rule: text, status: text, message: text })).max(1000),
});

const end = z.object({
  endedAt: text,
  engine: z.object({
    fired: count,
    dropped: count,
    unsent: count,
    abandoned: count,
    interrupted: z.boolean(),
    elapsedMs: ms,
  }),
  stop: z.object({ by: z.enum(['signal', 'failure', 'threshold', 'unknown']), code: text, message: text }).nullable(),
  tokenCalls: count.nullable(),
  tokenLatency: histogram,
  eventLoopDelayP99Ms: ms.nullable(),
  eventLoopDelayMaxMs: ms.nullable(),
  mockLag: z.object({ p99WallMs: ms, maxWallMs: ms, windowWallMs: ms, modelMs: ms }).optional(),
  startLateMs: ms.optional(),
  payload: z.looseObject({}).optional(),
  firstRedirect: text.optional(),
  files: z.array(z.object({ file: text, error: text.nullable() })).max(10_000),
});

const runRecord = z.object({
  schemaVersion: z.number(),
  loadproofVersion: text,
  scenarioFile: z.enum(['scenario.yaml', 'scenario.json']),
  scenarioSource: text,
  scenarioSha256: text,
  planIdentity: text,
  timeScale: z.number().min(1).max(1000),
  environment: text,
  target: z.object({
    baseUrl: text,
    kind: z.enum(['embedded-mock', 'loadproof-mock', 'loopback-stub', 'real']),
    profile: text.nullable(),
    tunnel: z.boolean().optional(),
    proxy: text.optional(),
  }),
  startedAt: text,
  guard,
  host: host.optional(),
  documentPieces: documentPieces.optional(),
  shard: z.object({ index: count, count: count }).optional(),
  startAt: text.optional(),
  mergedFrom: z
    .array(
      z.object({
        index: count,
        dir: text,
        startedAt: text,
        endedAt: text.nullable(),
        startLateMs: ms.optional(),
        manifestSha256: text.optional(),
        host: host.optional(),
      }),
    )
    .max(10_000)
    .optional(),
  baseline: text.optional(),
  capacity429Share: z.number().min(0).max(1).optional(),
  idleBefore: z.object({ ms, declaredBy: z.enum(['run', 'report']), at: text }).optional(),
  idleBeforeMs: ms.optional(),
  end: end.nullable(),
});

/** Where and what, for the first problem zod found: "end.engine: expected object, received null". */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  return `${issue.path.length === 0 ? '(top)' : issue.path.join('.')}: ${issue.message}`;
}

/** run.json's value checked; `path` names the file in the error. */
export function checkRunRecord(value: unknown, path: string): RunRecord {
  const parsed = runRecord.safeParse(value);
  if (!parsed.success)
    throw new UsageError(
      `${path}: ${firstIssue(parsed.error)}`,
      'run.json is written by loadproof run; this one was changed after the run; nothing was written',
    );
  return value as RunRecord;
}
