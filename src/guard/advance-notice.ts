/**
 * The advance notice a user sends support before a sandbox load test (spec: "announced to support at
 * least two weeks in advance"), drafted from the plan: the environment, the start window in UTC and when traffic
 * ends, the schedule phase by phase, what is sent, the predicted 429s, the peak rate and in-flight cap, whether the
 * coordination rule applies, the contact and (opt-in) client_id, and the earliest start the 14-day rule allows from
 * the day it is sent. With it comes the `notice:` block that makes the guard accept a run started inside the window
 * once support has given a reference. It sends nothing.
 */
import { UsageError } from '../core/index.js';
import { effectiveLimits, type Plan, predict429s } from '../plan/index.js';
import { NoticeSchema } from '../scenario/index.js';
import { TRAFFIC_RULES } from '../spec/index.js';
import type { GuardDecision } from './decision.js';
import { evaluateGuard } from './evaluate.js';
import { earliestStartMs, formatInstant } from './notice.js';
import { payloadOf, type ScheduledPhase, scheduleOf, shapeOf } from './notice-schedule.js';
import { noticeWindow } from './notice-window.js';
import { formatSpanMs, plannedPeakRpm } from './traffic.js';

/** Who is announcing, given on the command line: never read from credentials, so never a secret. */
interface NoticeParties {
  /** `--window`: the start window (ms); the run's length to the quarter hour when absent. */
  readonly windowMs?: number | undefined;
  /** `--contact`: who support reaches about the test. */
  readonly contact?: string | undefined;
  /** `--client-id`: the OAuth client the test uses, opt-in (a non-secret identifier support can search for). */
  readonly clientId?: string | undefined;
  /** `--shards`: the processes sending the plan (`run --shard i/n`), each with its own token call; 1 if absent. */
  readonly shards?: number | undefined;
}

export interface AdvanceNotice {
  readonly scenario: string;
  readonly description: string;
  readonly environment: string;
  readonly baseUrl: string | null;
  /** The day the notice is sent (UTC, YYYY-MM-DD). */
  readonly announcedOn: string;
  /** The earliest start the notice allows (ISO, 00:00 UTC 14 days after announcedOn). */
  readonly earliestStart: string;
  /** The start window: from `start` to `startBy`. */
  readonly start: string;
  readonly startBy: string;
  readonly startWindowMs: number;
  /** Start to planned end (last arrival plus the worst-case answer time, as the guard counts it), ms. */
  readonly runMs: number;
  /** The planned end of a run started at `start`. */
  readonly plannedEnd: string;
  /** When all traffic has ended at the latest (a run started at `startBy`): the announced window's end. */
  readonly windowEnd: string;
  /** The start is on or after earliestStart (always, where the 14-day rule does not apply). */
  readonly startAllowed: boolean;
  /** The 14-day rule applies: a sandbox load test. */
  readonly noticeRule: boolean;
  readonly shape: string;
  readonly schedule: readonly ScheduledPhase[];
  readonly payload: readonly string[];
  /** The most planned first attempts in any 60 s. */
  readonly peakRpm: number;
  readonly requests: number;
  /** Mode deid: the documents, each one obfuscation call besides its identification requests. */
  readonly documents: number | null;
  /** Requests in the worst case (every 429 retried to maxAttempts); equal to requests without retries. */
  readonly worstCaseRequests: number;
  readonly maxInFlight: number;
  /** OAuth token calls at the start: one per process sending the plan (n shards, n calls). */
  readonly tokenCalls: number;
  /** First attempts the documented (or raised) rate limit should answer 429, phase by phase, from a full bucket. */
  readonly predicted429s: {
    readonly limits: { readonly sustainedRpm: number; readonly burstRpm: number; readonly burstMinutes: number };
    readonly raisedBy: string | null;
    readonly phases: readonly { readonly phase: string; readonly refused: number; readonly firstAtMs: number | null }[];
  };
  readonly coordination: { readonly applies: boolean; readonly message: string; readonly reference: string | null };
  /** The support case of a notice already in the scenario (a notice drafted again), else null. */
  readonly noticeReference: string | null;
  readonly contact: string | null;
  readonly clientId: string | null;
  /** The guard's decision on the run at `start`, with the drafted notice in place. */
  readonly guard: GuardDecision;
}

/** Drafts the notice for `plan` starting at `startAtMs`, sent on `announcedOn` (UTC day). */
export function draftNotice(
  plan: Plan,
  startAtMs: number,
  announcedOn: string,
  parties: NoticeParties = {},
): AdvanceNotice {
  const days = TRAFFIC_RULES.sandboxNoticeDays;
  const earliest = earliestStartMs(announcedOn, days);
  const processes = parties.shards ?? 1;
  const first = evaluateGuard(plan, { startAtMs, processes });
  const plannedEndMs = Date.parse(first.plannedEndAt);
  const window = noticeWindow(startAtMs, plannedEndMs - startAtMs, parties.windowMs);
  const coordination = first.checks.find((c) => c.rule === 'coordination')!;
  const coordinationApplies = !coordination.message.endsWith('no coordination needed');
  const notice = noticeBlock(announcedOn, startAtMs, window);
  // The block the user will paste must pass the scenario's own schema (years up to 9999 among others): no
  // draft that the run would then refuse. Near the end of the calendar no window may exist.
  const checked = NoticeSchema.safeParse(notice);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new UsageError(
      `--at ${formatInstant(startAtMs)}: no notice window can announce this run: started as late as ${formatInstant(window.startByMs)} (the start window), it would run to ${formatInstant(window.endMs)}, and notice.${issue.path.join('.')} would be refused: ${issue.message}`,
      'choose an earlier start (--at) or a shorter --window; nothing was sent',
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
  const guard = evaluateGuard(withNotice, { startAtMs, processes });
  const s = plan.scenario;
  const sandbox = s.target.environment === 'sandbox';
  return {
    scenario: s.name,
    description: s.description,
    environment: s.target.environment,
    baseUrl: s.target.baseUrl ?? null,
    announcedOn,
    earliestStart: formatInstant(earliest),
    start: formatInstant(startAtMs),
    startBy: formatInstant(window.startByMs),
    startWindowMs: window.startWindowMs,
    runMs: plannedEndMs - startAtMs,
    plannedEnd: formatInstant(plannedEndMs),
    windowEnd: formatInstant(window.endMs),
    startAllowed: !sandbox || startAtMs >= earliest,
    noticeRule: sandbox,
    shape: shapeOf(scheduleOf(plan)),
    schedule: scheduleOf(plan),
    payload: payloadOf(plan, processes),
    peakRpm: plannedPeakRpm(plan),
    requests: plan.arrivals,
    documents: plan.documents?.count ?? null,
    worstCaseRequests: plan.arrivals * guard.traffic.worstCaseFactor,
    maxInFlight: s.maxInFlight,
    tokenCalls: processes,
    predicted429s: predictedFor(plan),
    coordination: {
      applies: coordinationApplies,
      message: aboveCoordination(first, plan, plannedEndMs - startAtMs),
      reference: s.coordination?.reference ?? null,
    },
    noticeReference: s.notice?.reference ?? null,
    contact: parties.contact ?? null,
    clientId: parties.clientId ?? null,
    guard,
  };
}

/** The predicted 429s as the notice states them: from the limits the plan is judged against. */
function predictedFor(plan: Plan): AdvanceNotice['predicted429s'] {
  const limits = effectiveLimits(plan.scenario);
  return {
    limits: { sustainedRpm: limits.sustainedRpm, burstRpm: limits.burstRpm, burstMinutes: limits.burstMinutes },
    raisedBy: limits.reference,
    phases: predict429s(plan, limits).map(({ phase, refused, firstAtMs }) => ({ phase, refused, firstAtMs })),
  };
}

/** Whole seconds, as an e-mail states a time: the start rounded down, an end up. */
const wholeSeconds = (ms: number, round: (x: number) => number): string => formatSpanMs(round(ms / 1000) * 1000);

/**
 * The stretch above the coordination rate as support reads it: whole seconds, and ending by the last request (the
 * guard's trailing minute still holds it for up to a minute after) — or, with retries, by the run's stated length.
 */
function aboveCoordination(decision: GuardDecision, plan: Plan, runMs: number): string {
  const stretch = decision.traffic.longestAboveCoordinationRpm;
  if (stretch === null) return `never above ${TRAFFIC_RULES.coordinationAboveRpm} rpm`;
  const lastArrivalMs = Math.max(0, ...plan.phases.map((p) => p.arrivalsMs.at(-1) ?? 0));
  const capMs = decision.traffic.worstCaseFactor === 1 ? lastArrivalMs : runMs;
  const endMs = Math.min(stretch.endMs, capMs);
  const phases = stretch.phases.length === 1 ? `phase ${stretch.phases[0]}` : `phases ${stretch.phases.join(', ')}`;
  return `more than ${TRAFFIC_RULES.coordinationAboveRpm} requests a minute from +${wholeSeconds(stretch.startMs, Math.floor)} to +${wholeSeconds(endMs, Math.ceil)} after the start, ${phases}`;
}

/** The `notice:` block the user will paste, its references still placeholders. */
function noticeBlock(announcedOn: string, startAtMs: number, window: ReturnType<typeof noticeWindow>) {
  return {
    announcedOn,
    reference: 'the support reference',
    window: {
      start: formatInstant(startAtMs),
      end: formatInstant(window.endMs),
      startBy: formatInstant(window.startByMs),
    },
  };
}
