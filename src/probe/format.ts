/** The probe's report: a table per step, how it ended, its ceiling, and what its latency is not. */
import type { ProbeResult, ProbeStep } from './probe.js';

export interface ProbeReport {
  readonly scenario: string;
  readonly endpoint: 'identification' | 'obfuscation';
  readonly url: string;
  readonly target: string;
  readonly timeScale: number;
  readonly stepMs: number;
  readonly maxRpm: number;
  readonly startedAt: string;
  readonly result: ProbeResult;
}

/** Why a closed loop's latency is not a user's, in the words every report of the probe carries. */
export const CLOSED_LOOP_CAVEAT =
  "Closed-loop latency is not the latency a user experiences. Each connection waits for its answer before it sends again, so when the service slows down the probe sends less, and the slow moments are under-sampled (coordinated omission): the percentiles here look better than a user at a fixed arrival rate would see. Use them to compare steps, not as an SLA. For SLA evidence run the open-model scenario `scenarios/capacity-step.yaml` (`loadproof run`): it keeps arrivals on their schedule, measures latency from each request's intended send time, and judges every step against the spec's targets.";

const ms = (v: number): string => (v >= 1000 ? `${(v / 1000).toFixed(2)}s` : `${Math.round(v)}ms`);

/** The last step without 429s or errors, if any. */
export function probeCeiling(result: ProbeResult): ProbeStep | undefined {
  return [...result.steps].reverse().find((s) => s.http429 === 0 && s.errors + s.timeouts + s.otherStatus === 0);
}

export function probeEnding(result: ProbeResult): string {
  const last = result.steps[result.steps.length - 1];
  if (last === undefined) return 'no step ran';
  const at = `at ${last.connections} connection${last.connections === 1 ? '' : 's'}`;
  switch (result.endedBy) {
    case 'first 429s':
      return `stopped at the first step with 429s, ${at}: ${last.http429} of ${last.answered} answers`;
    case 'errors':
      return `stopped at the first step with errors, ${at}: ${last.otherStatus} answers other than 2xx and 429, ${last.errors} connection errors, ${last.timeouts} timeouts`;
    case 'interrupted':
      return `interrupted ${at}`;
    case 'last step':
      return `every step ran without a 429 or an error (the last ${at}): the ceiling is above what was probed`;
  }
}

function rows(report: ProbeReport): string[][] {
  return report.result.steps.map((s) => [
    String(s.connections),
    String(s.answeredRpm),
    String(s.okRpm),
    s.latencyMs === null ? '—' : ms(s.latencyMs.p50),
    s.latencyMs === null ? '—' : ms(s.latencyMs.p95),
    s.latencyMs === null ? '—' : ms(s.latencyMs.p99),
    String(s.http429),
    String(s.otherStatus),
    String(s.errors),
    String(s.timeouts),
  ]);
}

const HEAD = ['connections', 'answered rpm', '2xx rpm', 'p50', 'p95', 'p99', '429', 'other', 'errors', 'timeouts'];

function intro(report: ProbeReport): string[] {
  const k = report.timeScale;
  return [
    `${report.scenario}: saturation probe of POST ${report.url} (${report.endpoint}) at ${report.target}`,
    `closed loop (autocannon), steps of ${report.stepMs / 1000} s of model time, each capped at ${report.maxRpm} rpm; latency of the answers other than 429${k === 1 ? '' : `; time scale ${k}: rates and latency in model time (latency is wall × ${k}, its overheads included ${k} times)`}`,
  ];
}

function closing(report: ProbeReport): string[] {
  const ceiling = probeCeiling(report.result);
  return [
    `ended: ${probeEnding(report.result)}`,
    ceiling === undefined ? 'ceiling: no step ran without 429s or errors' : `ceiling: ${ceiling.okRpm} rpm of 2xx at ${ceiling.connections} connection${ceiling.connections === 1 ? '' : 's'}, the last step without a 429 or an error`,
  ];
}

export function formatProbe(report: ProbeReport): string {
  const table = [HEAD, ...rows(report)];
  const widths = HEAD.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const lines = table.map((r) => `  ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')}`);
  return [...intro(report), '', ...lines, '', ...closing(report), '', CLOSED_LOOP_CAVEAT, ''].join('\n');
}

export function probeMarkdown(report: ProbeReport): string {
  const table = [HEAD, ...rows(report)];
  return [
    `# Saturation probe: ${report.scenario}`,
    '',
    ...intro(report).map((l) => `${l}  `),
    '',
    `| ${table[0]!.join(' | ')} |`,
    `| ${HEAD.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`,
    ...table.slice(1).map((r) => `| ${r.join(' | ')} |`),
    '',
    ...closing(report).map((l) => `- ${l}`),
    '',
    `> ${CLOSED_LOOP_CAVEAT}`,
    '',
    `Started ${report.startedAt}. \`probe.json\` holds every figure here, and each step's answers by status.`,
    '',
  ].join('\n');
}
