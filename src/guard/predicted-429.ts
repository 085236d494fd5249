/**
 * When the plan should meet its first 429, and about how many: the documented token bucket (refill at
 * sustainedRpm, capacity (burstRpm − sustainedRpm) × burstMinutes + 1) replayed over the planned first attempts,
 * assuming it is full at the start: the client sent nothing for as long as the bucket takes to refill. The
 * envelope check judges a run's 429s so only when that is known (its own mock, or --idle-before); the words say
 * the assumption. A refused arrival takes no token. Retries come on top and are not counted; neither is the in-
 * flight limit, which depends on the service's latency. So `plan` can tell, before anything is sent, whether a
 * scenario is meant to probe the limit or to stay under it.
 */
import type { Plan } from '../plan/index.js';
import { formatDuration } from '../scenario/index.js';
import { bucketCapacityTokens, type EnvelopeLimits, envelopeMarginTokens } from '../spec/index.js';
import { formatSpanMs } from './traffic.js';

interface Predicted429 {
  readonly phase: string;
  readonly planned: number;
  /** First attempts the bucket has no token for. */
  readonly refused: number;
  /**
   * First attempts it admits with less than 1 + the envelope's margin tokens: a 429 there would be at the edge, never a
   * finding.
   */
  readonly edge: number;
  /** When the first is expected (model ms from the run start), or null when none is. */
  readonly firstAtMs: number | null;
}

export function predict429s(plan: Plan, limits: EnvelopeLimits): Predicted429[] {
  const capacity = bucketCapacityTokens(limits);
  const margin = envelopeMarginTokens(limits);
  const refillPerMs = limits.sustainedRpm / 60_000;
  let tokens = capacity;
  let lastMs = 0;
  return plan.phases.map((phase) => {
    let refused = 0;
    let edge = 0;
    let firstAtMs: number | null = null;
    for (const t of phase.arrivalsMs) {
      tokens = Math.min(capacity, tokens + (t - lastMs) * refillPerMs);
      lastMs = t;
      if (tokens >= 1) {
        if (tokens < 1 + margin) edge++;
        tokens -= 1;
      } else {
        refused++;
        firstAtMs ??= t;
      }
    }
    return { phase: phase.name, planned: phase.arrivalsMs.length, refused, edge, firstAtMs };
  });
}

/** The prediction as `plan` shows it. */
export function describePredicted429s(
  plan: Plan,
  predictions: readonly Predicted429[],
  limits: EnvelopeLimits & { readonly reference?: string | null | undefined },
): string[] {
  const source =
    limits.reference === undefined || limits.reference === null
      ? 'the documented limits'
      : `the limits raised by support (${limits.reference})`;
  const capacity = bucketCapacityTokens(limits);
  // The idle time that fills an empty bucket, rounded up to the second as the envelope's findings say it.
  const idle = formatDuration(Math.ceil((capacity / limits.sustainedRpm) * 60) * 1000);
  const head = `Predicted 429s, from ${source}: a bucket of ${capacity} tokens refilled at ${limits.sustainedRpm} rpm, assuming the client sent nothing for ${idle} before the start (a full bucket); first attempts, retries come on top:`;
  const first = predictions.find((p) => p.firstAtMs !== null);
  const lines = predictions.map((p, i) => {
    const start = plan.phases[i]!.startMs;
    const edge =
      p.edge > 0
        ? `; ${p.edge} admitted within the envelope's margin (a 429 there would be at the edge, not a finding)`
        : '';
    const when =
      p.firstAtMs === null
        ? `none expected${edge}`
        : `${p.refused} of ${p.planned} refused, the first at ${formatSpanMs(p.firstAtMs)} (${formatSpanMs(p.firstAtMs - start)} into the phase)${edge}`;
    return `  ${p.phase.padEnd(Math.max(...predictions.map((q) => q.phase.length)))}  ${when}`;
  });
  const edges = predictions.reduce((n, p) => n + p.edge, 0);
  // A mock's 429 is no finding against the service, which a run against it says nothing of.
  const against = plan.scenario.target.environment === 'mock' ? 'the mock' : 'the service';
  const under =
    edges === 0
      ? `  → the plan stays under the rate limit: a rate-limit 429 would be a finding against ${against} from a full bucket (the in-flight limit depends on latency, and is not predicted)`
      : `  → the plan stays under the rate limit, ${edges} of its requests within the envelope's margin of it: a rate-limit 429 elsewhere would be a finding against ${against} from a full bucket (the in-flight limit depends on latency, and is not predicted)`;
  const summary =
    first === undefined
      ? under
      : `  → the plan probes the limit: the first 429 is expected in ${first.phase}, at ${formatSpanMs(first.firstAtMs!)}`;
  return [head, ...lines, summary];
}
