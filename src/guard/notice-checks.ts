/** The checks of a sandbox run's advance notice: announced early enough, and the run inside its window. */
import type { Plan } from '../plan/index.js';
import { SPEC_WORDING, TRAFFIC_RULES } from '../spec/index.js';
import type { GuardCheck } from './decision.js';
import {
  DAY_MS,
  earliestStartMs,
  formatDays,
  formatInstant,
  formatSpanInWords,
  latestAnnouncementDay,
} from './notice.js';

export function noticeCheck(plan: Plan, startMs: number): GuardCheck {
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

export function noticeWindowCheck(plan: Plan, startMs: number, endMs: number): GuardCheck {
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
  const startBy = window.startBy === undefined ? undefined : Date.parse(window.startBy);
  if (startBy !== undefined && startMs > startBy)
    problems.push(
      `the run would start at ${formatInstant(startMs)}, ${formatSpanInWords(startMs - startBy)} after the latest start announced (notice.window.startBy ${formatInstant(startBy)})`,
    );
  if (endMs > to)
    problems.push(
      `its planned end ${formatInstant(endMs)} (last arrival + worst-case answer time) is ${formatSpanInWords(endMs - to)} after ${span} closes`,
    );
  // The run's length is fixed by its plan, so the window's end sets the latest start, unless one was announced earlier.
  const latest = Math.min(to - (endMs - startMs), startBy ?? Infinity);
  if (problems.length === 0)
    return {
      rule: 'notice-window',
      status: 'ok',
      message: `start ${formatInstant(startMs)} and planned end ${formatInstant(endMs)} are inside ${span}`,
    };
  return {
    rule: 'notice-window',
    status: 'refused',
    message: `${problems.join('; ')}; run inside the window (from ${formatInstant(from)}, ending by ${formatInstant(to)}: ${latest < from ? `this run is ${formatSpanInWords(endMs - startMs)} long, longer than the window` : `start between ${formatInstant(from)} and ${formatInstant(latest)}`}) or announce a new one`,
  };
}
