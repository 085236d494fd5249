/** The end-of-run table on the terminal, like k6's summary: one row per phase, then the verdict. */
import { formatMs, formatTable } from '../core/text.js';
import type { Summary } from './summary.js';

const sec = (ms: number | null): string => (ms === null ? '—' : formatMs(ms));

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
    ...formatTable(rows, (col) => col > 0).map((l) => `  ${l}`),
    '',
    `generator: send lag p99 ${lag.p99 === null ? '—' : `${lag.p99.toFixed(2)} ms`}, max ${lag.max === null ? '—' : `${lag.max.toFixed(1)} ms`} (wall); token calls ${summary.token.calls}`,
    `verdict: ${summary.verdict.status.toUpperCase()}${summary.interrupted ? ' (partial: interrupted)' : ''} — exit ${exitCode}`,
    ...summary.verdict.reasons.map((r) => `  - ${r}`),
    `summary: ${summaryPath}`,
    '',
  ].join('\n');
}
