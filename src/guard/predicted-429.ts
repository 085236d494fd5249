/** The plan's predicted 429s (src/plan/predicted-429.ts) as `plan` shows them. */
import type { Plan, Predicted429 } from '../plan/index.js';
import { formatDuration } from '../scenario/index.js';
import { bucketCapacityTokens, type EnvelopeLimits } from '../spec/index.js';
import { formatSpanMs } from './traffic.js';

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
