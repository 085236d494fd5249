/** The end-of-run table on the terminal, like k6's summary: one row per phase, then the verdict. */
import type { Summary } from './summary.js';

const sec = (ms: number | null): string => (ms === null ? '—' : ms >= 1000 ? `${(ms / 1000).toFixed(2)}s` : `${Math.round(ms)}ms`);

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => r[col]!.length)));
  return rows.map((r) => r.map((cell, col) => (col === 0 ? cell.padEnd(widths[col]!) : cell.padStart(widths[col]!))).join('  '));
}

export function formatSummary(summary: Summary, summaryPath: string, exitCode: number): string {
  const errors = (e: Record<string, number>): number => Object.values(e).reduce((a, b) => a + b, 0);
  const rows = [
    ['phase', 'offered', 'achieved', 'sent', 'dropped', '2xx', '429', '504', 'errors', 'p50', 'p95', 'p99', 'target p95', 'verdict'],
    ...summary.phases.map((p) => [
      p.name,
      `${p.offeredRpm}`,
      `${p.achievedRpm.toFixed(1)}`,
      `${p.sent}`,
      `${p.dropped}`,
      `${p.outcomes.ok}`,
      `${p.outcomes.http_429}`,
      `${p.outcomes.http_504}`,
      `${errors(p.errors) + p.outcomes.http_other}`,
      sec(p.steadyLatencyMs.p50),
      sec(p.steadyLatencyMs.p95),
      sec(p.steadyLatencyMs.p99),
      p.target === null ? '(none)' : `< ${sec(p.target.p95Ms)}`,
      p.verdict,
    ]),
  ];
  const o = summary.overall;
  rows.push(['overall', '', '', `${o.sent}`, `${o.dropped}`, `${o.outcomes.ok}`, `${o.outcomes.http_429}`, `${o.outcomes.http_504}`, `${errors(o.errors) + o.outcomes.http_other}`, sec(o.latencyMs.p50), sec(o.latencyMs.p95), sec(o.latencyMs.p99), '', '']);
  const lag = summary.generator.sendLagWallMs;
  const head = `${summary.scenario}: ${summary.environment}${summary.target.embeddedMock ? ` (embedded mock, profile ${summary.target.profile})` : ` ${summary.target.baseUrl}`}, time scale ${summary.timeScale}, ${sec(summary.modelDurationS * 1000)} of model time${summary.interrupted ? ' — INTERRUPTED' : ''}`;
  return [
    '',
    head,
    'rates in requests/min; latency from the intended send time, answers other than 429, steady state (after warm-up), model time',
    '',
    ...table(rows).map((l) => `  ${l}`),
    '',
    `generator: send lag p99 ${lag.p99 === null ? '—' : `${lag.p99.toFixed(2)} ms`}, max ${lag.max === null ? '—' : `${lag.max.toFixed(1)} ms`} (wall); token calls ${summary.token.calls}`,
    `verdict: ${summary.verdict.status.toUpperCase()}${summary.interrupted ? ' (partial: interrupted)' : ''} — exit ${exitCode}`,
    ...summary.verdict.reasons.map((r) => `  - ${r}`),
    `summary: ${summaryPath}`,
    '',
  ].join('\n');
}
