// npm run bench:coverage — does the verdict's "95 %" interval of p95 cover the true p95 95 % of the
// time when latencies are correlated (queueing), and at what width? For each profile × band it
// simulates BENCH_SEEDS (default 200) seeded runs of the mock's identification fleet on a virtual clock
// (simulateIdentification: no sockets, no sleeping), drops the warm-up, records the steady state into a
// Slice with its time blocks exactly as a run does, and judges p95 through the verdict's own
// percentileCheck. The truth is the pooled p95 of every run's steady state. It prints, per cell, the
// coverage and median width of that interval, and of the order-statistics interval alone (which assumes
// independent samples); a last row per band does the same on independent log-normal draws. Exits 1
// when a simulated cell covers less than 93 %. About two minutes.
import { createRng, nextNormal } from '../dist/core/rng.js';
import { nearestRank, percentileCheck, quantileRankBounds } from '../dist/judge/index.js';
import { PROFILES } from '../dist/mock/index.js';
import { simulateIdentification } from '../dist/mock/simulate.js';
import { MsHistogram, Slice } from '../dist/recorder/index.js';
import { latencyBandFor } from '../dist/spec/index.js';

const SEEDS = Number(process.env.BENCH_SEEDS ?? 200);
const PROFILE_NAMES = (process.env.BENCH_PROFILES ?? 'nominal,degraded').split(',');
const REQUIRED = 0.93;
const Q = 0.95;
/** Phases as the shipped scenarios run them (sustained.yaml, burst.yaml, capacity-step.yaml). */
const BANDS = [
  { band: 'sustained', rpm: 100, durationMs: 10 * 60_000, warmupMs: 60_000 },
  { band: 'burst', rpm: 200, durationMs: 5 * 60_000, warmupMs: 30_000 },
  { band: 'spike', rpm: 300, durationMs: 2 * 60_000, warmupMs: 20_000 },
];

/** A steady-state slice of one simulated run: answers after the warm-up, as the recorder sees them. */
function steadySlice(outcomes, { durationMs, warmupMs }) {
  const slice = new Slice({ fromMs: warmupMs, toMs: durationMs });
  for (const { atMs, outcome } of outcomes) {
    if (atMs < warmupMs) continue;
    const answered = outcome.kind === 'ok' || outcome.kind === 'timeout';
    const status = outcome.kind === 'ok' ? 200 : outcome.kind === 'timeout' ? 504 : 429;
    const endAtMs = answered ? atMs + outcome.totalMs : atMs;
    const kind = status === 200 ? 'ok' : status === 504 ? 'http_504' : 'http_429';
    slice.add({
      phase: 0,
      intendedAtMs: atMs,
      outcome: kind,
      firedAtMs: atMs,
      result: { status, attempts: 1, lastSentAtMs: atMs, endAtMs, retryAfterS: [] },
    });
  }
  return slice;
}

/** n independent log-normal latencies (median 1.5 s, σ 0.3) at the band's spacing. */
function independentSlice(seed, { rpm, durationMs, warmupMs }) {
  const rng = createRng(100_000 * rpm + seed);
  const outcomes = [];
  for (let atMs = 0; atMs < durationMs; atMs += 60_000 / rpm)
    outcomes.push({ atMs, outcome: { kind: 'ok', totalMs: 1500 * Math.exp(0.3 * nextNormal(rng)) } });
  return steadySlice(outcomes, { durationMs, warmupMs });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const covers = (lower, upper, truth) => (lower === null || lower <= truth) && (upper === null || truth <= upper);
const s = (ms) => (ms / 1000).toFixed(3);

function cell(name, band, sliceOf) {
  const slices = [];
  const pooled = MsHistogram.create();
  for (let seed = 1; seed <= SEEDS; seed++) {
    const slice = sliceOf(seed);
    slices.push(slice);
    pooled.add(slice.latencyExcl429);
  }
  const truth = pooled.rankMs(nearestRank(Q, pooled.count));
  const target = latencyBandFor(band.rpm).p95TargetMs;
  let covered = 0;
  let coveredByOrderStatistics = 0;
  let missingSide = 0;
  // Each bound is claimed at 97.5 % on its own: a pass of p95 < target rests on the upper bound alone.
  let lowerAboveTruth = 0;
  let upperBelowTruth = 0;
  const widths = [];
  const orderStatisticsWidths = [];
  const counts = [];
  for (const slice of slices) {
    const h = slice.latencyExcl429;
    counts.push(h.count);
    // The verdict's own check of the band's target: the same interval a run reports.
    const [lower, upper] = percentileCheck(slice, 95, '<', target, {}).interval;
    if (covers(lower, upper, truth)) covered++;
    if (lower !== null && lower > truth) lowerAboveTruth++;
    if (upper !== null && upper < truth) upperBelowTruth++;
    if (lower === null || upper === null) missingSide++;
    else widths.push(upper - lower);
    const { lowerRank, upperRank } = quantileRankBounds(h.count, Q);
    const osLower = lowerRank === undefined ? null : h.rankMs(lowerRank);
    const osUpper = upperRank === undefined ? null : h.rankMs(upperRank);
    if (covers(osLower, osUpper, truth)) coveredByOrderStatistics++;
    if (osLower !== null && osUpper !== null) orderStatisticsWidths.push(osUpper - osLower);
  }
  const width = widths.length > 0 ? median(widths) : Number.NaN;
  const osWidth = orderStatisticsWidths.length > 0 ? median(orderStatisticsWidths) : Number.NaN;
  const coverage = covered / slices.length;
  const ratio = osWidth > 0 ? (width / osWidth).toFixed(2) : '—';
  const pct = (x) => `${(100 * x).toFixed(1)} %`;
  // Every run at the same value (the server's timeout): coverage there measures nothing.
  const degenerate = width === 0 && osWidth === 0;
  console.log(
    `| ${name} | ${band.band} ${band.rpm} rpm × ${band.durationMs / 60_000} min (warm-up ${band.warmupMs / 1000} s) | ${slices.length} | ${median(counts)} | ${s(truth)} | **${pct(coverage)}**${degenerate ? ' (degenerate: every run at one value)' : ''} | ${pct(lowerAboveTruth / slices.length)} | ${pct(upperBelowTruth / slices.length)} | ${s(width)} | ${pct(coveredByOrderStatistics / slices.length)} | ${s(osWidth)} | ${ratio} | ${missingSide} |`,
  );
  return {
    coverage,
    upperMiss: upperBelowTruth / slices.length,
    lowerMiss: lowerAboveTruth / slices.length,
    degenerate,
  };
}

const started = performance.now();
console.log(
  `p95 coverage of the verdict's 95 % interval, ${SEEDS} seeded runs per cell; truth = pooled p95 of all runs' steady state (widths in s)\n`,
);
console.log(
  '| profile | band | runs | samples per run | true p95 s | coverage | lower bound above truth (claimed ≤ 2.5 %) | upper bound below truth (claimed ≤ 2.5 %) | median width | order statistics: coverage | median width | width ratio | runs missing a side |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
const short = [];
let worstSide = 0;
for (const name of PROFILE_NAMES) {
  const profile = PROFILES[name];
  if (profile === undefined) throw new Error(`BENCH_PROFILES: no profile "${name}"`);
  for (const band of BANDS) {
    const { coverage, upperMiss, lowerMiss, degenerate } = cell(name, band, (seed) =>
      steadySlice(simulateIdentification(profile, band.rpm, band.durationMs, seed).outcomes, band),
    );
    if (coverage < REQUIRED) short.push(`${name} ${band.band}`);
    if (!degenerate) worstSide = Math.max(worstSide, upperMiss, lowerMiss);
  }
}
for (const band of BANDS) cell('independent (log-normal)', band, (seed) => independentSlice(seed, band));
console.log(
  `\n${((performance.now() - started) / 1000).toFixed(0)} s. ${short.length === 0 ? `Every simulated cell covers at least ${REQUIRED * 100} %.` : `Under ${REQUIRED * 100} %: ${short.join(', ')}.`}`,
);
console.log(
  `One side: at most ${(100 * worstSide).toFixed(1)} % of runs had a bound on the wrong side of the truth (each side is claimed at 2.5 %).`,
);
process.exitCode = short.length === 0 ? 0 : 1;
