/** The checks of the plan's traffic against the spec: coordination above its rate, and the rate-limit envelope. */
import type { EffectiveLimits, Plan } from '../plan/index.js';
import { SPEC_WORDING, TRAFFIC_RULES } from '../spec/index.js';
import type { GuardCheck, GuardDecision, StretchSummary } from './decision.js';
import { formatSpanMs, WINDOW_MS } from './traffic.js';

export const COORDINATION_MS = TRAFFIC_RULES.coordinationAfterMinutes * 60_000;

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

export function coordinationCheck(plan: Plan, stretch: StretchSummary | null, worstCase: string): GuardCheck {
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

export function envelopeCheck(
  traffic: GuardDecision['traffic'],
  limits: EffectiveLimits,
  worstCase: string,
): GuardCheck {
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
