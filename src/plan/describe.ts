/** A human description of a Plan for `loadproof plan`: what would be sent, when, and against which targets. */
import { formatTable, TimeScale } from '../core/index.js';
import { formatDuration } from '../scenario/index.js';
import { IDENTIFICATION_LIMITS, LATENCY_BANDS } from '../spec/index.js';
import type { BandSlice } from './bands.js';
import type { Plan, PlannedPhase } from './build-plan.js';
import { minimumSamplesFor, sampleNotes } from './sample-notes.js';
import { documentsHeld } from './shard-documents.js';

const shapeOf = (p: PlannedPhase): string => {
  const rate = (from: number, to: number, unit: string): string =>
    from === to ? `${round(from)} ${unit}` : `${round(from)}→${round(to)} ${unit}`;
  // A deid phase: documents a minute, and the identification requests a minute they make.
  return p.documents === undefined
    ? rate(p.fromRpm, p.toRpm, 'rpm')
    : `${rate(p.documents.fromRpm, p.documents.toRpm, 'docs/min')} = ${rate(p.fromRpm, p.toRpm, 'rpm')}`;
};
/** The fewest samples whose p95 has an upper bound at 97.5 % (order statistics: 0.95^72 < 0.025). */
const P95_UPPER_BOUND_MIN_SAMPLES = minimumSamplesFor(95, 'upper');
const round = (rpm: number): string => String(Math.round(rpm * 10) / 10);
const bandName = (b: BandSlice): string => b.band?.band ?? '(none)';
const bandTargetText = (b: BandSlice): string =>
  b.band === undefined ? '(none)' : `< ${formatDuration(b.band.p95TargetMs)}`;

/** Plain sentences about parts of the plan a reader should notice before running it. */
export function planNotes(plan: Plan): string[] {
  const notes: string[] = [];
  for (const p of plan.phases) {
    for (const b of p.bands) {
      if (b.band === undefined) continue;
      const which =
        p.bands.length === 1 ? 'it' : `its ${round(b.fromRpm)}–${round(b.toRpm)} rpm part (${b.band.band} band)`;
      if (b.steadyArrivals === 0 && b.arrivals > 0)
        notes.push(`phase ${p.name}: ${which} falls in the warm-up: its p95 is not judged`);
      else if (b.steadyArrivals > 0 && b.steadyArrivals < P95_UPPER_BOUND_MIN_SAMPLES) {
        notes.push(
          `phase ${p.name}: ${which} holds ${b.steadyArrivals} requests after the warm-up, too few to show its p95 under the target (at least ${P95_UPPER_BOUND_MIN_SAMPLES}): that check can fail but not pass`,
        );
      }
    }
    // A deid phase's request rate is its documents' rate × their mean pieces, which the payload's draws decide.
    if (p.documents !== undefined) {
      const edge = LATENCY_BANDS.map((b) => b.upToRpm).find(
        (up) => Number.isFinite(up) && [p.fromRpm, p.toRpm].some((r) => Math.abs(r - up) <= 0.05 * up),
      );
      if (edge !== undefined) {
        notes.push(
          `phase ${p.name}: its ${round(p.offeredRpm)} identification requests a minute (${round((p.documents.fromRpm + p.documents.toRpm) / 2)} documents a minute × ${round(p.arrivalsMs.length / Math.max(1, p.documents.count))} pieces) lie within 5 % of the ${edge} rpm band edge: another payload (seed, lengths, split) may put it in the other band`,
        );
      }
    }
    const unbanded = p.bands.find((b) => b.band === undefined);
    if (unbanded !== undefined && unbanded.arrivals > 0) {
      notes.push(
        `phase ${p.name}: ${unbanded.arrivals === p.arrivalsMs.length ? 'its' : `${unbanded.arrivals} of its ${p.arrivalsMs.length}`} arrivals come above ${IDENTIFICATION_LIMITS.spikeRpm} rpm, where the spec documents no p95 target`,
      );
    }
    if (p.peakRpm >= IDENTIFICATION_LIMITS.spikeRpm && p.durationMs > IDENTIFICATION_LIMITS.spikeMaxMinutes * 60_000) {
      notes.push(
        `phase ${p.name} runs at ${p.peakRpm} rpm for ${formatDuration(p.durationMs)}: longer than the documented ${IDENTIFICATION_LIMITS.spikeMaxMinutes} minutes of a spike`,
      );
    }
  }
  notes.push(...sampleNotes(plan));
  // The arrival process runs across phases, so a short or slow phase may hold none; one note for all of them.
  const empty = plan.phases.filter((p) => p.arrivalsMs.length === 0);
  if (empty.length > 0) {
    const names =
      empty.length <= 5
        ? empty.map((p) => p.name).join(', ')
        : `${empty
            .slice(0, 5)
            .map((p) => p.name)
            .join(', ')}, …`;
    const why =
      plan.scenario.arrivals.process === 'constant'
        ? 'rate × duration < 1'
        : 'rate × duration < 1, or no Poisson arrival fell in it';
    notes.push(
      `${empty.length === 1 ? 'phase' : `${empty.length} phases`} ${names} ${empty.length === 1 ? 'plans' : 'plan'} no request (${why}; the plan's arrivals run on across phases)`,
    );
  }
  return notes;
}

export function describePlan(plan: Plan): string {
  const s = plan.scenario;
  const target =
    s.target.environment === 'mock'
      ? s.target.baseUrl === undefined
        ? `mock (embedded, profile ${s.target.profile ?? 'nominal'})`
        : `mock at ${s.target.baseUrl} (its profile and time scale are read from its /__mock/stats when the run starts; a server without them runs in real time, profile unknown)`
      : `${s.target.environment} ${s.target.baseUrl ?? ''}`.trim();
  const rows = [
    [
      '#',
      'phase',
      'rate',
      'duration',
      plan.documents === undefined ? 'requests' : 'documents → requests',
      'band',
      'p95 target',
      'warm-up',
    ],
    ...plan.phases.flatMap((p) => [
      [
        String(p.index + 1),
        p.name,
        shapeOf(p),
        formatDuration(p.durationMs),
        p.documents === undefined ? String(p.arrivalsMs.length) : `${p.documents.count} → ${p.arrivalsMs.length}`,
        p.bands.map((b) => bandName(b)).join(' → '),
        p.bands.map((b) => bandTargetText(b)).join(' → '),
        p.warmupMs > 0 ? formatDuration(p.warmupMs) : '',
      ],
      // A ramp across bands: one line per band, each judged on its own arrivals.
      ...(p.bands.length > 1
        ? p.bands.map((b) => [
            '',
            `  ${round(b.fromRpm)}→${round(b.toRpm)} rpm`,
            '',
            formatDuration(b.endMs - b.startMs),
            String(b.arrivals),
            bandName(b),
            bandTargetText(b),
            '',
          ])
        : []),
    ]),
    [
      '',
      'total',
      '',
      formatDuration(plan.durationMs),
      plan.documents === undefined ? String(plan.arrivals) : `${documentsHeld(plan)} → ${plan.arrivals}`,
      '',
      '',
      '',
    ],
  ];
  const wall =
    plan.timeScale === 1
      ? ''
      : `; at time scale ${plan.timeScale} it runs in ${formatDuration(TimeScale.of(plan.timeScale).toWallMs(plan.durationMs))} of wall time`;
  const notes = planNotes(plan);
  return [
    `Plan: ${s.name} — ${s.description}`,
    `Target: ${target} · arrivals ${s.arrivals.process} (seed ${s.arrivals.seed}) · on 429: ${s.on429.policy}${s.on429.policy === 'retry' ? ` (≤ ${s.on429.maxAttempts} attempts)` : ''} · client timeout ${formatDuration(s.timeoutMs)}, max in flight ${s.maxInFlight}`,
    `Duration: ${formatDuration(plan.durationMs)} of model time${wall}`,
    ...(plan.documents === undefined
      ? []
      : [
          `Mode deid: each document is split, its pieces identified ${s.deid.concurrency === 1 ? 'one after another' : `${s.deid.concurrency} at a time`}, then obfuscated whole; the rates and bands below are of identification requests`,
        ]),
    '',
    ...formatTable(rows).map((line) => `  ${line}`),
    ...(notes.length > 0 ? ['', 'Notes:', ...notes.map((n) => `  - ${n}`)] : []),
    '',
  ].join('\n');
}
