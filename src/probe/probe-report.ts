/**
 * The probe's report: a table per step, how it ended, the last step without 429s or errors, and what its numbers are
 * not.
 */
import { MAX_ANSWER_BYTES } from '../client/index.js';
import { TimeScale } from '../core/index.js';
import { type ProbeResult, type ProbeStep, requestsPerWallSecond } from './probe.js';

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
const CLOSED_LOOP_CAVEAT =
  "Closed-loop latency is not the latency a user experiences. Each connection waits for its answer before it sends again, so when the service slows down the probe sends less, and the slow moments are under-sampled (coordinated omission): the percentiles here look better than a user at a fixed arrival rate would see. Use them to compare steps, not as an SLA. For SLA evidence run the open-model scenario `scenarios/capacity-step.yaml` (`loadproof run`): it keeps arrivals on their schedule, measures latency from each request's intended send time, and judges every step against the spec's targets.";

/** Why the step of the first 429 is not a rate limit by itself. */
export const BUCKET_CAVEAT =
  'A rate limit that allows bursts (a token bucket) refuses once enough requests have been sent in all: where the first 429s come depends on how long each step lasts and on the steps before it, not on the connections alone. Probe again with another --step before reading a rate limit from it.';

const ms = (v: number): string => (v >= 1000 ? `${(v / 1000).toFixed(2)}s` : `${Math.round(v)}ms`);
const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The cap as autocannon holds it (whole requests a wall second), in model requests a minute. */
export function effectiveCapRpm(report: Pick<ProbeReport, 'maxRpm' | 'timeScale'>): number {
  return TimeScale.of(report.timeScale).toModelRate(requestsPerWallSecond(report.maxRpm, report.timeScale) * 60);
}

/** The last step without 429s or errors, if any. */
export function lastCleanStep(result: ProbeResult): ProbeStep | undefined {
  // An interrupted step ran only part of its length: it says nothing of a limit.
  const whole = result.endedBy === 'interrupted' ? result.steps.slice(0, -1) : result.steps;
  return [...whole]
    .reverse()
    .find((s) => s.http429 === 0 && s.errors + s.timeouts + s.otherStatus + s.malformed + s.tooLarge === 0);
}

/** How the probe ended, and what to read from it, in lines. */
export function probeFindings(report: ProbeReport): string[] {
  const { result } = report;
  const last = result.steps[result.steps.length - 1];
  if (last === undefined) return ['no step ran'];
  const at = `at ${plural(last.connections, 'connection')}`;
  const sentInAll = result.steps.reduce((n, s) => n + s.sent, 0);
  const clean = lastCleanStep(result);
  const cleanLine =
    clean === undefined
      ? 'no step ran without a 429 or an error'
      : `last step without a 429 or an error: ${plural(clean.connections, 'connection')}, ${clean.okRpm} rpm of 2xx`;
  const cut = result.steps.reduce((n, s) => n + s.cut, 0);
  const cutLine =
    cut === 0
      ? []
      : [
          `${plural(cut, 'request')} still unanswered when their step ended (cut): the percentiles leave them out, so the slowest answers may be missing`,
        ];
  switch (result.endedBy) {
    case 'first 429s':
      return [
        `stopped at the first step with 429s, ${at}: ${last.http429} of ${last.answered} answers, after ${sentInAll} requests in all`,
        cleanLine,
        BUCKET_CAVEAT,
        ...cutLine,
      ];
    case 'errors':
      return [
        `stopped at the first step with errors, ${at}: ${last.otherStatus} answers other than 2xx and 429, ${last.malformed} malformed 2xx bodies, ${last.tooLarge > 0 ? `${last.tooLarge} answers over the ${MAX_ANSWER_BYTES}-byte cap (too_large, not read on), ` : ''}${last.errors} requests without an answer (connection errors, connections closed under them), ${last.timeouts} timeouts`,
        ...(last.status['401'] === undefined
          ? []
          : [
              `${last.status['401']} answers were 401: a token is fetched before each step, so a step longer than the token's lifetime meets its expiry`,
            ]),
        cleanLine,
        ...cutLine,
      ];
    case 'interrupted':
      return [`interrupted ${at}`, cleanLine, ...cutLine];
    case 'token failed':
      return [
        `stopped after the step ${at}: the token call before the next step failed (${result.failure ?? 'no reason given'})`,
        cleanLine,
        ...cutLine,
      ];
    case 'last step': {
      const cap = effectiveCapRpm(report);
      const held =
        last.answeredRpm >= 0.95 * cap
          ? [
              `the last step answered at the cap of ${Math.round(cap)} rpm: the cap, not the service, held it back; raise --max-rpm to look higher`,
            ]
          : [];
      return [
        `no step got a 429 or an error, up to ${plural(last.connections, 'connection')} (${last.okRpm} rpm of 2xx at the last)`,
        ...held,
        ...cutLine,
      ];
    }
  }
}

function rows(report: ProbeReport): string[][] {
  return report.result.steps.map((s) => [
    String(s.connections),
    String(s.sent),
    String(s.answeredRpm),
    String(s.okRpm),
    s.latencyMs === null ? '—' : ms(s.latencyMs.p50),
    s.latencyMs === null ? '—' : ms(s.latencyMs.p95),
    s.latencyMs === null ? '—' : ms(s.latencyMs.p99),
    String(s.http429),
    String(s.otherStatus),
    String(s.malformed),
    String(s.errors),
    String(s.timeouts),
    String(s.cut),
  ]);
}

const HEAD = [
  'connections',
  'sent',
  'answered rpm',
  '2xx rpm',
  'p50',
  'p95',
  'p99',
  '429',
  'other',
  'malformed',
  'errors',
  'timeouts',
  'cut',
];

function intro(report: ProbeReport): string[] {
  const k = report.timeScale;
  return [
    `${report.scenario}: saturation probe of POST ${report.url} (${report.endpoint}) at ${report.target}`,
    `closed loop (autocannon), steps of ${report.stepMs / 1000} s of model time, each capped at ${Math.round(effectiveCapRpm(report) * 10) / 10} rpm; latency of the answers other than 429${k === 1 ? '' : `; time scale ${k}: rates and latency in model time (the mock's Server-Timing model time, the wall overheads counted once)`}`,
  ];
}

export function formatProbe(report: ProbeReport): string {
  const table = [HEAD, ...rows(report)];
  const widths = HEAD.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const lines = table.map(
    (r) => `  ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')}`,
  );
  return [...intro(report), '', ...lines, '', ...probeFindings(report), '', CLOSED_LOOP_CAVEAT, ''].join('\n');
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
    ...probeFindings(report).map((l) => `- ${l}`),
    '',
    `> ${CLOSED_LOOP_CAVEAT}`,
    '',
    `Started ${report.startedAt}. \`probe.json\` holds every figure here, and each step's answers by status.`,
    '',
  ].join('\n');
}
