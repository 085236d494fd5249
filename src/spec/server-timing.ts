/**
 * loadproof's own convention between its mock and its client (not part of the vendor's API): the
 * mock names in `Server-Timing: svc;dur=<model ms>` the time each pipeline answer spent in its
 * modelled service, so that a time-scaled run counts the wall-clock overheads around it once.
 */

/** The Server-Timing metric carrying a request's time in the modelled service (model ms). */
export const MODEL_TIME_METRIC = 'svc';

/** The header value saying a request spent `modelMs` (model ms) in the modelled service. */
export const formatModelTime = (modelMs: number): string => `${MODEL_TIME_METRIC};dur=${Math.max(0, modelMs).toFixed(3)}`;

/**
 * The model ms of the `svc` metric in a Server-Timing header (one value or several), or undefined
 * when it has none, or its duration is not a finite number ≥ 0.
 */
export function parseModelTime(header: string | readonly string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  for (const value of typeof header === 'string' ? [header] : header) {
    for (const entry of value.split(',')) {
      const [name, ...params] = entry.split(';').map((p) => p.trim());
      if (name !== MODEL_TIME_METRIC) continue;
      for (const param of params) {
        const eq = param.indexOf('=');
        if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'dur') continue;
        const ms = Number(param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1'));
        return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
      }
      return undefined;
    }
  }
  return undefined;
}
