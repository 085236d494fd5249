/**
 * What `notice` tells the user, apart from the text they send: whether the start is allowed, where the notice was
 * written, and the `notice:` block to put in the scenario once support has answered.
 */
import { formatDuration } from '../scenario/index.js';
import { TRAFFIC_RULES } from '../spec/index.js';
import type { AdvanceNotice } from './advance-notice.js';
import { formatSpanMs } from './traffic.js';

/** The instructions; `written` is where notice.md went, or null when it was not written (the run would be refused). */
export function formatNoticeInstructions(n: AdvanceNotice, written: string | null): string[] {
  const days = TRAFFIC_RULES.sandboxNoticeDays;
  return [
    written === null
      ? 'No notice was written: the run it would announce is refused (below).'
      : `Wrote ${written}: the text to send support (paste it into the ticket or an e-mail as it is).`,
    '',
    n.noticeRule
      ? `Sent on ${n.announcedOn}, it allows a start from ${n.earliestStart} (${days} days, counted from 00:00 UTC).`
      : `The ${days}-day notice rule is the sandbox's; for ${n.environment}, only the coordination rule applies.`,
    n.startAllowed
      ? `It announces a start from ${n.start} to ${n.startBy} (a start window of ${formatDuration(n.startWindowMs)}; --window to change it), traffic ending by ${n.windowEnd}.`
      : `The planned start ${n.start} is TOO EARLY: ${formatSpanMs(Date.parse(n.earliestStart) - Date.parse(n.start))} before the earliest allowed; pick a start from ${n.earliestStart}.`,
    '',
    'Once support answers, put this in the scenario (the guard then accepts a run started inside the start window):',
    '',
    'notice:',
    `  announcedOn: '${n.announcedOn}'`,
    '  reference: <the support case id>',
    '  window:',
    `    start: '${n.start}'`,
    `    end: '${n.windowEnd}'`,
    `    startBy: '${n.startBy}'`,
    ...(n.coordination.applies && n.coordination.reference === null
      ? ['coordination:', '  reference: <the support case id for traffic above 200 rpm>']
      : []),
    ...(n.guard.allowed
      ? []
      : ['', 'Even with these in place, the guard would refuse the run:', ...n.guard.reasons.map((r) => `  ✖ ${r}`)]),
  ];
}
