/**
 * The charts of a run that steps the rate up, against the offered rate: each step's latency with its band's target
 * (which steps at the documented band edges), and its goodput beside what was offered and sent, with the documented
 * limits as reference lines: a goodput that stays flat while the offered rate climbs is the rate limit.
 */
import type { Summary } from '../judge/index.js';
import type { Capacity } from './capacity.js';
import { axis, chart, type ChartSpec, COLOURS, line, type Point } from './chart-config.js';

/** The x axis of the rate charts: from a little below the lowest step to the highest, so the first edge shows. */
function rateAxis(summary: Summary): Record<string, unknown> {
  const rates = summary.phases.flatMap((p) => [p.fromRpm, p.toRpm]);
  const low = Math.min(...rates);
  const high = Math.max(...rates);
  return axis('offered rate (requests/min, model time)', {
    type: 'linear',
    min: Math.max(0, Math.floor(low - Math.max(10, (high - low) / 8))),
    max: high,
  });
}

/**
 * Each band's target over the rates it covers, up to its documented upper edge (sustained: the sustained rate, burst:
 * the burst rate, spike: the spike rate): a step, at each edge, from one target to the next.
 */
function targetByBand(summary: Summary, capacity: Capacity, fromRpm: number): Point[] {
  const limits = summary.guard.limits;
  const upTo: Record<string, number> = {
    sustained: limits.sustainedRpm,
    burst: limits.burstRpm,
    spike: limits.spikeRpm,
  };
  const bands = new Map<string, number>();
  for (const s of capacity.steps) if (s.band !== null && s.targetMs !== null) bands.set(s.band, s.targetMs);
  const ordered = [...bands].sort((a, b) => (upTo[a[0]] ?? Infinity) - (upTo[b[0]] ?? Infinity));
  const highest = Math.max(...capacity.steps.map((s) => s.toRpm));
  const points: Point[] = [];
  let from = fromRpm;
  for (const [band, targetMs] of ordered) {
    const to = Math.min(upTo[band] ?? highest, highest);
    points.push({ x: from, y: targetMs }, { x: Math.max(from, to), y: targetMs });
    from = Math.max(from, to);
  }
  return points;
}

/** Each step's p50 and p95 with its 95 % interval, and its band's target, against the offered rate. */
export function latencyVsRate(summary: Summary, capacity: Capacity): ChartSpec {
  const at = (f: (s: Capacity['steps'][number]) => number | null | undefined): Point[] =>
    capacity.steps.map((s) => ({ x: (s.fromRpm + s.toRpm) / 2, y: f(s) ?? null }));
  const x = rateAxis(summary);
  return chart(
    'latency-vs-rate',
    'Latency against the offered rate (each step, steady state, 429s answered at once left out)',
    [
      line(
        'p50',
        at((s) => s.p50Ms),
        COLOURS.p50,
        { pointRadius: 3 },
      ),
      line(
        'p95',
        at((s) => s.p95Ms),
        COLOURS.p95,
        { pointRadius: 4 },
      ),
      line(
        'p95, 95 % interval: upper end',
        at((s) => s.interval?.[1]),
        COLOURS.p95,
        { borderDash: [3, 3], borderWidth: 1 },
      ),
      line(
        'p95, 95 % interval: lower end',
        at((s) => s.interval?.[0]),
        COLOURS.p95,
        { borderDash: [3, 3], borderWidth: 1 },
      ),
      line(
        "p95 target (the spec's band, by offered rate)",
        targetByBand(summary, capacity, x.min as number),
        COLOURS.target,
        {
          borderDash: [8, 4],
        },
      ),
    ],
    { x, y: axis('latency (ms, model time)', { min: 0 }) },
  );
}

/** A horizontal reference line across the rate axis. */
const reference = (label: string, y: number, x: Record<string, unknown>, colour: string): Record<string, unknown> =>
  line(
    label,
    [
      { x: x.min as number, y },
      { x: x.max as number, y },
    ],
    colour,
    { borderDash: [2, 4], borderWidth: 1.5 },
  );

/** Each step's goodput and sent rate against the rate offered, with the documented limits and the plateau. */
export function goodputVsOffered(summary: Summary): ChartSpec {
  const x = rateAxis(summary);
  const limits = summary.guard.limits;
  const plateau = summary.capacity?.plateau ?? null;
  const byPhase = (f: (p: Summary['phases'][number]) => number | null): Point[] =>
    summary.phases.map((p) => ({ x: p.offeredRpm, y: f(p) }));
  return chart(
    'goodput-vs-offered',
    'Goodput (answered 2xx a minute) against the offered rate (each step, model time)',
    [
      line(
        'goodput (2xx/min)',
        byPhase((p) => p.goodputRpm),
        '#2ca02c',
        { pointRadius: 4, borderWidth: 3 },
      ),
      line(
        'offered (requests/min)',
        byPhase((p) => p.offeredRpm),
        COLOURS.offered,
        { borderDash: [6, 3], borderWidth: 2 },
      ),
      line(
        'sent (requests/min)',
        byPhase((p) => p.achievedRpm),
        COLOURS.sent,
        { pointRadius: 3 },
      ),
      reference(`documented sustained limit (${limits.sustainedRpm}/min)`, limits.sustainedRpm, x, '#d62728'),
      reference(
        `documented burst rate (${limits.burstRpm}/min for ${limits.burstMinutes} min)`,
        limits.burstRpm,
        x,
        '#ff7f0e',
      ),
      ...(plateau === null
        ? []
        : [
            line(
              `plateau: about ${Math.round(plateau.goodputRpm)}/min from ${plateau.fromPhase}`,
              [
                { x: plateau.fromOfferedRpm, y: plateau.goodputRpm },
                { x: plateau.toOfferedRpm, y: plateau.goodputRpm },
              ],
              '#000000',
              { borderWidth: 16, borderColor: 'rgba(0, 0, 0, 0.15)', backgroundColor: 'rgba(0, 0, 0, 0.15)' },
            ),
          ]),
    ],
    { x, y: axis('rate (requests/min, model time)', { min: 0 }) },
  );
}
