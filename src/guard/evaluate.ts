/**
 * The guard: a pure function of (plan, target, notice / coordination / limits, start time) that
 * decides whether a run may send anything, with one check per rule and a reason for each refusal
 * naming the rule, the values and what would satisfy it. `run` obeys it before the token call;
 * `plan` prints it. The spec's rules apply to real environments (sandbox, production); a mock must
 * be on loopback.
 */
import { TimeScale } from '../core/index.js';
import { type EffectiveLimits, effectiveLimits, type Plan } from '../plan/index.js';
import { SPEC_WORDING, TRAFFIC_RULES } from '../spec/index.js';
import { isLoopbackUrl } from './loopback.js';
import {
  DAY_MS,
  earliestStartMs,
  formatDays,
  formatInstant,
  formatSpanInWords,
  latestAnnouncementDay,
} from './notice.js';
import { formatSpanMs, measureTraffic, type Stretch, WINDOW_MS } from './traffic.js';

export type GuardRule = 'target' | 'time-scale' | 'notice' | 'notice-window' | 'coordination' | 'envelope';

export interface GuardCheck {
  readonly rule: GuardRule;
  readonly status: 'ok' | 'refused' | 'not-applicable';
  readonly message: string;
}

export interface GuardDecision {
  readonly allowed: boolean;
  readonly environment: Plan['scenario']['target']['environment'];
  /** Whether the spec's traffic rules applied (sandbox, production). */
  readonly real: boolean;
  readonly startAt: string;
  /** Last arrival slot plus the worst-case wait for its answer (retries included). */
  readonly plannedEndAt: string;
  /** The planned arrivals in sliding 60 s windows, each counted worstCaseFactor times (see traffic.ts). */
  readonly traffic: {
    /** Each arrival counted this many times: on429 retry's maxAttempts (retries and the resend after a token renewal), else 1. */
    readonly worstCaseFactor: number;
    /** The most requests in any 60 s window (requests per minute). */
    readonly peakRpm: number;
    /** Where the first window holding peakRpm requests starts (model ms from the run start); null without arrivals. */
    readonly peakMinuteStartMs: number | null;
    /** The longest stretch whose trailing minute holds more than 200 requests (dips under a minute bridged), or null. */
    readonly longestAboveCoordinationRpm: StretchSummary | null;
    /** The longest stretch at the spike rate: first to last request in windows holding ≥ spikeRpm requests, or null. */
    readonly longestAtSpikeRpm: StretchSummary | null;
    readonly maxInFlight: number;
  };
  readonly limits: EffectiveLimits;
  readonly checks: readonly GuardCheck[];
  /** `rule: message` of every refused check. */
  readonly reasons: readonly string[];
}

/** A stretch of the plan: model ms from the run start, exact to the microsecond. */
export type StretchSummary = Stretch;

export interface GuardContext {
  /** When the run starts (epoch ms): now for `run`, `--at` for `plan`. */
  readonly startAtMs: number;
  /** Tests only: a real environment at a loopback URL is judged as real instead of refused. */
  readonly loopbackAsReal?: boolean;
  /**
   * The endpoint the plan's requests go to (default identification). The spec gives obfuscation no numbers
   * ("substantially higher" limits), so the identification envelope is not its: only the traffic rules apply.
   */
  readonly endpoint?: 'identification' | 'obfuscation';
}

const COORDINATION_MS = TRAFFIC_RULES.coordinationAfterMinutes * 60_000;

/**
 * Whether a measured stretch is longer than a limit given in minutes, in whole seconds. A stretch is
 * measured from discrete requests, so each end is known only to about one request's spacing: exactly
 * five minutes at 300 rpm between 200 rpm phases measures 5m0.6s, because each neighbour's nearest
 * request completes a minute of 300. An excess under a second is that resolution; a second is not.
 */
const longerThan = (durationMs: number, limitMs: number): boolean => Math.floor(durationMs / 1000) * 1000 > limitMs;

/** The phases of a stretch; a long list keeps its ends (the stretch field has them all). */
const phaseList = (s: StretchSummary): string => {
  const p = s.phases;
  if (p.length === 1) return `phase ${p[0]}`;
  return p.length <= 6
    ? `phases ${p.join(', ')}`
    : `phases ${p.slice(0, 3).join(', ')}, …, ${p.slice(-2).join(', ')}: ${p.length} phases`;
};
const where = (s: StretchSummary): string => `${formatSpanMs(s.startMs)} – ${formatSpanMs(s.endMs)}, ${phaseList(s)}`;

/**
 * The worst-case time after the last arrival slot until its final answer (model ms). In mode deid a
 * document's pieces may go one wave after another (its concurrency), and its obfuscation call comes last.
 */
function worstTailMs(plan: Plan): number {
  const { on429, timeoutMs } = plan.scenario;
  const one =
    on429.policy === 'retry' ? on429.maxAttempts * timeoutMs + (on429.maxAttempts - 1) * on429.maxDelayMs : timeoutMs;
  const d = plan.documents;
  if (d === undefined) return one;
  let most = 1;
  for (let i = 0; i < d.count; i++) most = Math.max(most, d.firstSeq[i + 1]! - d.firstSeq[i]!);
  return (Math.ceil(most / plan.scenario.deid.concurrency) + 1) * one;
}

export function evaluateGuard(plan: Plan, context: GuardContext): GuardDecision {
  const s = plan.scenario;
  const environment = s.target.environment;
  const startMs = context.startAtMs;
  // Wall time: a time-scaled plan (mock only) ends k times sooner.
  const endMs = startMs + TimeScale.of(plan.timeScale).toWallMs(plan.durationMs + worstTailMs(plan));
  const limits = effectiveLimits(s);
  const measures = measureTraffic(plan, {
    aboveRpm: TRAFFIC_RULES.coordinationAboveRpm,
    aboveLimitMs: COORDINATION_MS,
    atRpm: limits.spikeRpm,
    atLimitMs: limits.spikeMinutes * WINDOW_MS,
  });
  const factor = measures.worstCaseFactor;
  const traffic = {
    worstCaseFactor: factor,
    peakRpm: measures.peakRpm,
    peakMinuteStartMs: measures.peakMinuteStartMs,
    longestAboveCoordinationRpm: measures.longestAbove,
    longestAtSpikeRpm: measures.longestAt,
    maxInFlight: s.maxInFlight,
  };
  const real = environment !== 'mock';
  const spreadMs = (factor - 1) * (s.timeoutMs + s.on429.maxDelayMs);
  const worstCase =
    factor > 1
      ? ` (worst case: on429 retry with maxAttempts ${factor}: each arrival counts once per attempt, and its retries — after a 429, or the resend after a token renewal — may land up to ${formatSpanMs(spreadMs)} after it, (maxAttempts − 1) × (timeout + maxDelay), so every minute they could reach counts them)`
      : '';

  const checks: GuardCheck[] = [targetCheck(plan, context), timeScaleCheck(plan)];
  if (!real) {
    const na = 'the spec’s traffic rules apply to sandbox and production, and this is a mock';
    for (const rule of ['notice', 'notice-window', 'coordination', 'envelope'] as const)
      checks.push({ rule, status: 'not-applicable', message: na });
  } else {
    checks.push(noticeCheck(plan, startMs), noticeWindowCheck(plan, startMs, endMs));
    checks.push(coordinationCheck(plan, traffic.longestAboveCoordinationRpm, worstCase));
    checks.push(
      context.endpoint === 'obfuscation'
        ? {
            rule: 'envelope',
            status: 'not-applicable',
            message:
              'the spec gives the obfuscation endpoint no numbers ("substantially higher" limits than identification): only the traffic rules (notice, coordination) apply',
          }
        : envelopeCheck(traffic, limits, worstCase),
    );
  }
  const reasons = checks.filter((c) => c.status === 'refused').map((c) => `${c.rule}: ${c.message}`);
  return {
    allowed: reasons.length === 0,
    environment,
    real,
    startAt: formatInstant(startMs),
    plannedEndAt: formatInstant(endMs),
    traffic,
    limits,
    checks,
    reasons,
  };
}

function targetCheck(plan: Plan, context: GuardContext): GuardCheck {
  const t = plan.scenario.target;
  const ok = (message: string): GuardCheck => ({ rule: 'target', status: 'ok', message });
  const refused = (message: string): GuardCheck => ({ rule: 'target', status: 'refused', message });
  if (t.environment === 'mock') {
    if (t.baseUrl === undefined) return ok('the embedded mock, on loopback');
    if (isLoopbackUrl(t.baseUrl)) return ok(`a mock on loopback (${t.baseUrl})`);
    return refused(
      `target.baseUrl ${t.baseUrl} is not loopback, but target.environment is mock (the default when none is declared); a mock runs on loopback (127.0.0.0/8, 0.0.0.0, ::1, ::, those IPv4 addresses inside IPv6, localhost, *.localhost) — to test a real service, declare target.environment: sandbox or production`,
    );
  }
  const url = t.baseUrl ?? '';
  if (!isLoopbackUrl(url)) return ok(`${t.environment} at ${url}`);
  if (context.loopbackAsReal === true)
    return ok(
      `${t.environment} at ${url}: a loopback URL judged as a real environment (--allow-loopback-as-real, a switch for loadproof's own tests)`,
    );
  return refused(
    `target.baseUrl ${url} is loopback, but target.environment is ${t.environment}: a real environment is not on this machine; for a local mock declare target.environment: mock`,
  );
}

function timeScaleCheck(plan: Plan): GuardCheck {
  const env = plan.scenario.target.environment;
  if (env === 'mock')
    return {
      rule: 'time-scale',
      status: 'ok',
      message: plan.timeScale === 1 ? 'real time' : `time scale ${plan.timeScale} (mock only)`,
    };
  if (plan.timeScale === 1) return { rule: 'time-scale', status: 'ok', message: 'real time' };
  return {
    rule: 'time-scale',
    status: 'refused',
    message: `--time-scale ${plan.timeScale} against ${env}: a real service runs in real time (rates × ${plan.timeScale} would be sent); drop --time-scale (or set it to 1)`,
  };
}

function noticeCheck(plan: Plan, startMs: number): GuardCheck {
  const s = plan.scenario;
  const days = TRAFFIC_RULES.sandboxNoticeDays;
  if (s.target.environment !== 'sandbox')
    return {
      rule: 'notice',
      status: 'not-applicable',
      message: `advance notice is a sandbox rule; this is ${s.target.environment}`,
    };
  const latestDay = latestAnnouncementDay(startMs, days);
  if (s.notice === undefined) {
    return {
      rule: 'notice',
      status: 'refused',
      message: `a sandbox run needs an advance notice and this scenario has none (spec: "${SPEC_WORDING.notice}"); announce the test to support, then add notice: { announcedOn: <date>, reference: <case id> } — for a run starting ${formatInstant(startMs)}, announcedOn must be ${latestDay} or earlier (UTC)`,
    };
  }
  const earliest = earliestStartMs(s.notice.announcedOn, days);
  const ahead = startMs - (earliest - days * DAY_MS);
  if (startMs >= earliest) {
    return {
      rule: 'notice',
      status: 'ok',
      message: `announced on ${s.notice.announcedOn} (${s.notice.reference}), ${formatSpanInWords(ahead)} before the run start (at least ${days} days needed)`,
    };
  }
  const short = earliest - startMs;
  const when =
    ahead < 0
      ? `after the run start ${formatInstant(startMs)}`
      : `${formatSpanInWords(ahead)} before the run start ${formatInstant(startMs)}`;
  return {
    rule: 'notice',
    status: 'refused',
    message: `notice.announcedOn ${s.notice.announcedOn} (${s.notice.reference}) is ${when}: ${formatSpanInWords(short)}${short % DAY_MS === 0 ? '' : ` (${formatDays(short)})`} short of the ${days} days the spec asks ("${SPEC_WORDING.notice}"); start at or after ${formatInstant(earliest)}, or use a notice announced on ${latestDay} or earlier`,
  };
}

function noticeWindowCheck(plan: Plan, startMs: number, endMs: number): GuardCheck {
  const window = plan.scenario.notice?.window;
  if (window === undefined)
    return { rule: 'notice-window', status: 'not-applicable', message: 'the notice gives no window' };
  const from = Date.parse(window.start);
  const to = Date.parse(window.end);
  const span = `the announced window ${formatInstant(from)} – ${formatInstant(to)}`;
  const problems: string[] = [];
  if (startMs < from)
    problems.push(
      `the run would start at ${formatInstant(startMs)}, ${formatSpanInWords(from - startMs)} before ${span} opens`,
    );
  if (endMs > to)
    problems.push(
      `its planned end ${formatInstant(endMs)} (last arrival + worst-case answer time) is ${formatSpanInWords(endMs - to)} after ${span} closes`,
    );
  if (problems.length === 0)
    return {
      rule: 'notice-window',
      status: 'ok',
      message: `start ${formatInstant(startMs)} and planned end ${formatInstant(endMs)} are inside ${span}`,
    };
  return {
    rule: 'notice-window',
    status: 'refused',
    message: `${problems.join('; ')}; run inside the window (from ${formatInstant(from)}, ending by ${formatInstant(to)}) or announce a new one`,
  };
}

function coordinationCheck(plan: Plan, stretch: StretchSummary | null, worstCase: string): GuardCheck {
  const rpm = TRAFFIC_RULES.coordinationAboveRpm;
  const reference = plan.scenario.coordination?.reference;
  if (stretch === null || !longerThan(stretch.durationMs, COORDINATION_MS)) {
    const longest =
      stretch === null
        ? `never above ${rpm} rpm`
        : `at most ${formatSpanMs(stretch.durationMs)} above ${rpm} rpm (${where(stretch)})`;
    return { rule: 'coordination', status: 'ok', message: `${longest}${worstCase}: no coordination needed` };
  }
  const what = `the plan sends more than ${rpm} requests in the minute before each moment for ${formatSpanMs(stretch.durationMs)} from ${formatSpanMs(stretch.startMs)} to ${formatSpanMs(stretch.endMs)} (${phaseList(stretch)})${worstCase}`;
  if (reference !== undefined)
    return { rule: 'coordination', status: 'ok', message: `${what}: coordinated with support (${reference})` };
  return {
    rule: 'coordination',
    status: 'refused',
    message: `${what}, more than ${TRAFFIC_RULES.coordinationAfterMinutes} minutes (spec: "${SPEC_WORDING.coordination}"; dips shorter than a minute count in); coordinate with support and add coordination: { reference: <case id> }, or keep above ${rpm} rpm for at most ${TRAFFIC_RULES.coordinationAfterMinutes} minutes`,
  };
}

function envelopeCheck(traffic: GuardDecision['traffic'], limits: EffectiveLimits, worstCase: string): GuardCheck {
  const problems: string[] = [];
  if (traffic.peakRpm > limits.spikeRpm) {
    problems.push(
      `it peaks at ${traffic.peakRpm} rpm (${traffic.peakRpm} requests in the minute from ${formatSpanMs(traffic.peakMinuteStartMs ?? 0)}), above ${limits.spikeRpm} rpm${worstCase}`,
    );
  }
  const atSpike = traffic.longestAtSpikeRpm;
  if (atSpike !== null && longerThan(atSpike.durationMs, limits.spikeMinutes * WINDOW_MS)) {
    problems.push(
      `it stays at ${limits.spikeRpm} rpm for ${formatSpanMs(atSpike.durationMs)} from ${formatSpanMs(atSpike.startMs)} to ${formatSpanMs(atSpike.endMs)} (${phaseList(atSpike)}), more than ${limits.spikeMinutes} minutes (first to last request in minutes holding ${limits.spikeRpm} or more; dips shorter than a minute count in)${worstCase}`,
    );
  }
  if (traffic.maxInFlight > limits.maxInFlight)
    problems.push(`maxInFlight ${traffic.maxInFlight} is above ${limits.maxInFlight} in flight`);
  const atSpikeText =
    atSpike === null
      ? `never at ${limits.spikeRpm} rpm`
      : `at most ${formatSpanMs(atSpike.durationMs)} at ${limits.spikeRpm} rpm (${where(atSpike)})`;
  const inside = `peak ${traffic.peakRpm} rpm, ${atSpikeText}, maxInFlight ${traffic.maxInFlight}`;
  if (limits.reference === null) {
    if (problems.length === 0)
      return { rule: 'envelope', status: 'ok', message: `inside the documented envelope (${inside})` };
    return {
      rule: 'envelope',
      status: 'refused',
      message: `the plan is outside the documented envelope (${SPEC_WORDING.spike}; at most ${limits.maxInFlight} in flight): ${problems.join('; ')}; the spec says "${SPEC_WORDING.maximums}" — lower the plan, or declare the limits support raised for you: limits: { spikeRpm, spikeMinutes, maxInFlight, …, reference: <case id> }`,
    };
  }
  if (problems.length === 0)
    return {
      rule: 'envelope',
      status: 'ok',
      message: `inside the limits raised by support (${limits.reference}): ${inside}`,
    };
  return {
    rule: 'envelope',
    status: 'refused',
    message: `the plan exceeds the limits raised by support (${limits.reference}: up to ${limits.spikeRpm} rpm for ${limits.spikeMinutes} minutes, ${limits.maxInFlight} in flight): ${problems.join('; ')}; lower the plan or ask support to raise the limits further`,
  };
}
