/**
 * The advance notice a user sends support before a sandbox load test (spec: "announced to support at
 * least two weeks in advance"), drafted from the plan: the environment, the window in UTC, the peak
 * and sustained rates, the requests in all, whether the coordination rule applies, and the earliest
 * start the 14-day rule allows from the day it is sent. With it comes the `notice:` block that makes
 * the guard accept the run once support has given a reference. It sends nothing.
 */
import { UsageError } from '../core/index.js';
import type { Plan } from '../plan/index.js';
import { NoticeSchema } from '../scenario/index.js';
import { TRAFFIC_RULES } from '../spec/index.js';
import type { GuardDecision } from './decision.js';
import { evaluateGuard } from './evaluate.js';
import { earliestStartMs, formatInstant } from './notice.js';
import { formatSpanMs, plannedPeakRpm } from './traffic.js';

/** The announced window closes this long after the planned end, rounded up to a quarter hour: room for a late start. */
const WINDOW_SLACK_MS = 15 * 60_000;
const QUARTER_HOUR_MS = 15 * 60_000;

interface AdvanceNotice {
  readonly scenario: string;
  readonly environment: string;
  readonly baseUrl: string | null;
  /** The day the notice is sent (UTC, YYYY-MM-DD). */
  readonly announcedOn: string;
  /** The earliest start the notice allows (ISO, 00:00 UTC 14 days after announcedOn). */
  readonly earliestStart: string;
  readonly start: string;
  /** Last arrival plus the worst-case answer time (the guard's planned end). */
  readonly plannedEnd: string;
  readonly windowEnd: string;
  /** The start is on or after earliestStart (always, where the 14-day rule does not apply). */
  readonly startAllowed: boolean;
  /** The 14-day rule applies: a sandbox load test. */
  readonly noticeRule: boolean;
  /** The most planned first attempts in any 60 s. */
  readonly peakRpm: number;
  /** The rate the plan holds longest, and for how long (model ms). */
  readonly sustained: { readonly rpm: number; readonly forMs: number };
  readonly requests: number;
  /** Mode deid: the documents, each one obfuscation call besides its identification requests. */
  readonly documents: number | null;
  /** Requests in the worst case (every 429 retried to maxAttempts); equal to requests without retries. */
  readonly worstCaseRequests: number;
  readonly maxInFlight: number;
  readonly coordination: { readonly applies: boolean; readonly message: string };
  /** The guard's decision on the run at `start`, with the drafted notice in place. */
  readonly guard: GuardDecision;
}

/** Drafts the notice for `plan` starting at `startAtMs`, sent on `announcedOn` (UTC day). */
export function draftNotice(plan: Plan, startAtMs: number, announcedOn: string): AdvanceNotice {
  const days = TRAFFIC_RULES.sandboxNoticeDays;
  const earliest = earliestStartMs(announcedOn, days);
  const first = evaluateGuard(plan, { startAtMs });
  const plannedEndMs = Date.parse(first.plannedEndAt);
  const windowEndMs = Math.ceil((plannedEndMs + WINDOW_SLACK_MS) / QUARTER_HOUR_MS) * QUARTER_HOUR_MS;
  const coordination = first.checks.find((c) => c.rule === 'coordination')!;
  const coordinationApplies = !coordination.message.endsWith('no coordination needed');
  const notice = {
    announcedOn,
    reference: 'the support reference',
    window: { start: formatInstant(startAtMs), end: formatInstant(windowEndMs) },
  };
  // The block the user will paste must pass the scenario's own schema (years up to 9999 among others): no
  // draft that the run would then refuse. Near the end of the calendar no window may exist.
  const checked = NoticeSchema.safeParse(notice);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new UsageError(
      `--at ${formatInstant(startAtMs)}: no notice window can announce this run: it would run from the start to ${formatInstant(windowEndMs)} (the planned end ${formatInstant(plannedEndMs)}, with ${WINDOW_SLACK_MS / 60_000} minutes' slack, to the quarter hour), and notice.${issue.path.join('.')} would be refused: ${issue.message}`,
      'choose an earlier start (--at); nothing was sent',
    );
  }
  // The guard again, as it will judge the run once the notice (and, where the rule applies, support's coordination
  // reference) is in the scenario.
  const withNotice: Plan = {
    ...plan,
    scenario: {
      ...plan.scenario,
      notice,
      ...(coordinationApplies && plan.scenario.coordination === undefined
        ? { coordination: { reference: 'the coordination reference' } }
        : {}),
    },
  };
  const guard = evaluateGuard(withNotice, { startAtMs });
  const sandbox = plan.scenario.target.environment === 'sandbox';
  return {
    scenario: plan.scenario.name,
    environment: plan.scenario.target.environment,
    baseUrl: plan.scenario.target.baseUrl ?? null,
    announcedOn,
    earliestStart: formatInstant(earliest),
    start: formatInstant(startAtMs),
    plannedEnd: formatInstant(plannedEndMs),
    windowEnd: formatInstant(windowEndMs),
    startAllowed: !sandbox || startAtMs >= earliest,
    peakRpm: plannedPeakRpm(plan),
    sustained: heldLongest(plan),
    requests: plan.arrivals,
    documents: plan.documents?.count ?? null,
    worstCaseRequests: plan.arrivals * guard.traffic.worstCaseFactor,
    maxInFlight: plan.scenario.maxInFlight,
    noticeRule: sandbox,
    coordination: {
      applies: coordinationApplies,
      message: coordination.message.replace(/, more than 5 minutes .*$/, ''),
    },
    guard,
  };
}

/** The offered rate held for the most model time (ramps count at their mean rate). */
function heldLongest(plan: Plan): { rpm: number; forMs: number } {
  const byRate = new Map<number, number>();
  for (const p of plan.phases) byRate.set(p.offeredRpm, (byRate.get(p.offeredRpm) ?? 0) + p.durationMs);
  let best = { rpm: 0, forMs: 0 };
  for (const [rpm, forMs] of byRate)
    if (forMs > best.forMs || (forMs === best.forMs && rpm < best.rpm)) best = { rpm, forMs };
  return best;
}

/** The notice as text to send, then the block to put in the scenario. */
export function formatNotice(n: AdvanceNotice): string[] {
  const rpm = (x: number): string => `${Math.round(x * 100) / 100} requests a minute`;
  const lines = [
    `Subject: advance notice of a load test on the ${n.environment} PHI ${n.documents === null ? 'Identification API' : 'Identification and Obfuscation APIs (de-identification)'} — ${n.scenario}`,
    '',
    `Environment:        ${n.environment}${n.baseUrl === null ? '' : ` (${n.baseUrl})`}`,
    `Window (UTC):       ${n.start} – ${n.windowEnd} (planned end ${n.plannedEnd}, the last request's worst-case answer included)`,
    `Peak rate:          ${rpm(n.peakRpm)} (the most in any 60 s)`,
    `Sustained rate:     ${rpm(n.sustained.rpm)}, for ${formatSpanMs(n.sustained.forMs)} in all`,
    `${n.documents === null ? 'Requests in total: ' : 'Identification:    '} ${n.requests.toLocaleString('en-US')}${n.documents === null ? '' : ` requests for ${n.documents.toLocaleString('en-US')} documents`}${n.worstCaseRequests === n.requests ? ' (no retries)' : ` (at most ${n.worstCaseRequests.toLocaleString('en-US')} if every 429 is retried)`}`,
    ...(n.documents === null
      ? []
      : [
          `Obfuscation calls: ${n.documents.toLocaleString('en-US')} (one per document, after its identification requests; PHI Obfuscation's own limits)`,
        ]),
    `In flight at most:  ${n.maxInFlight}${n.documents === null ? '' : ' identification requests (obfuscation calls go on connections of their own, as many again at most)'}`,
    `Coordination:       ${n.coordination.applies ? `needed — ${n.coordination.message}` : `not needed — ${n.coordination.message}`}`,
    '',
    n.noticeRule
      ? `Sent on ${n.announcedOn}, this notice allows a start from ${n.earliestStart} (${TRAFFIC_RULES.sandboxNoticeDays} days, counted from 00:00 UTC).`
      : `The ${TRAFFIC_RULES.sandboxNoticeDays}-day notice rule is the sandbox's; for ${n.environment}, only the coordination rule (above) applies.`,
    n.startAllowed
      ? `The planned start ${n.start} is allowed.`
      : `The planned start ${n.start} is TOO EARLY: ${formatSpanMs(Date.parse(n.earliestStart) - Date.parse(n.start))} before the earliest allowed; pick a start from ${n.earliestStart}.`,
    '',
    'Once support answers, put this in the scenario (the guard then accepts a run inside the window):',
    '',
    'notice:',
    `  announcedOn: '${n.announcedOn}'`,
    '  reference: <the support case id>',
    '  window:',
    `    start: '${n.start}'`,
    `    end: '${n.windowEnd}'`,
    ...(n.coordination.applies
      ? ['coordination:', '  reference: <the support case id for traffic above 200 rpm>']
      : []),
    ...(n.guard.allowed
      ? []
      : ['', 'Even with these in place, the guard would refuse the run:', ...n.guard.reasons.map((r) => `  ✖ ${r}`)]),
  ];
  return lines;
}
