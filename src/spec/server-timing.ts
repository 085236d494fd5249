/**
 * loadproof's own convention between its mock and its client (not part of the vendor's API): the
 * mock names in `Server-Timing: svc;dur=<model ms>` the time each pipeline answer spent in its
 * modelled service, so that a time-scaled run counts the wall-clock overheads around it once.
 */

/** The Server-Timing metric carrying a request's time in the modelled service (model ms). */
const MODEL_TIME_METRIC = 'svc';

/**
 * The Server-Timing metric saying how long (model ms) a time-scaled mock held the answer after its
 * model time, because it runs its model that far behind the real clock (src/mock/model-clock.ts):
 * not time in the service, and not an overhead a real deployment pays.
 */
const MODEL_LAG_METRIC = 'lag';

/**
 * The request header in which a client tells a time-scaled mock when a request was due: wall ms on
 * the machine's monotonic clock (core/clock.ts `monotonicMs`), so the mock admits it at its due time.
 */
export const DUE_HEADER = 'x-loadproof-due';

/**
 * The header value saying a request spent `modelMs` (model ms) in the modelled service, and its answer was held
 * `lagMs`.
 */
export const formatModelTime = (modelMs: number, lagMs = 0): string =>
  `${MODEL_TIME_METRIC};dur=${Math.max(0, modelMs).toFixed(3)}${lagMs > 0 ? `, ${MODEL_LAG_METRIC};dur=${lagMs.toFixed(3)}` : ''}`;

/**
 * The model ms of the `svc` metric in a Server-Timing header (one value or several), or undefined
 * when it has none, or its duration is not a finite number ≥ 0.
 */
export function parseModelTime(header: string | readonly string[] | undefined): number | undefined {
  return parseTimingMetric(header, MODEL_TIME_METRIC);
}

/** The model ms of the `lag` metric (MODEL_LAG_METRIC), like parseModelTime. */
export function parseModelLag(header: string | readonly string[] | undefined): number | undefined {
  return parseTimingMetric(header, MODEL_LAG_METRIC);
}

function parseTimingMetric(header: string | readonly string[] | undefined, metric: string): number | undefined {
  if (header === undefined) return undefined;
  for (const value of typeof header === 'string' ? [header] : header) {
    for (const entry of value.split(',')) {
      const [name, ...params] = entry.split(';').map((p) => p.trim());
      if (name !== metric) continue;
      for (const param of params) {
        const eq = param.indexOf('=');
        if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'dur') continue;
        const ms = Number(
          param
            .slice(eq + 1)
            .trim()
            .replace(/^"(.*)"$/, '$1'),
        );
        return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
      }
      return undefined;
    }
  }
  return undefined;
}
