/** The phase table: a row per phase, and per load band of a ramp, with its p95's interval and target. */
import type { Summary } from '../judge/index.js';
import { errorsOf, ms, p95Text } from './figure-text.js';

export function phaseRows(summary: Summary): string[][] {
  const rows: string[][] = [];
  for (const p of summary.phases) {
    const checks = summary.verdict.checks.filter((c) => c.phase === p.name && c.id === 'latency_p95_target');
    const only = p.bands.length <= 1 ? checks[0] : undefined;
    rows.push([
      p.name,
      String(p.offeredRpm),
      p.achievedRpm.toFixed(1),
      p.goodputRpm === null ? '—' : p.goodputRpm.toFixed(1),
      String(p.sent),
      String(p.outcomes.ok),
      String(p.outcomes.http_429),
      String(p.outcomes.http_504),
      String(errorsOf(p)),
      ms(p.steadyLatencyMs.p50),
      p.bands.length > 1 ? p95Text(p.steadyLatencyMs.p95, undefined) : p95Text(p.steadyLatencyMs.p95, only?.interval),
      ms(p.steadyLatencyMs.p99),
      p.target === null ? (p.bands.length > 1 ? 'by band, below' : '—') : `< ${ms(p.target.p95Ms)}`,
      p.verdict.toUpperCase(),
    ]);
    // A ramp across load bands is judged per band, by the rate at each arrival: a row per band slice.
    if (p.bands.length > 1) {
      for (const b of p.bands) {
        const check = checks.find((c) => c.band === b.band);
        rows.push([
          `↳ ${b.fromRpm}→${b.toRpm} rpm (${b.band ?? 'no'} band)`,
          '',
          '',
          '',
          String(b.steadyLatencyMs.count),
          '',
          '',
          '',
          '',
          ms(b.steadyLatencyMs.p50),
          p95Text(b.steadyLatencyMs.p95, check?.interval),
          ms(b.steadyLatencyMs.p99),
          b.p95Ms === null ? '—' : `< ${ms(b.p95Ms)}`,
          check === undefined ? '' : check.status.toUpperCase(),
        ]);
      }
    }
  }
  return rows;
}
