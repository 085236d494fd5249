/**
 * `loadproof notice <scenario> --at <start>`: drafts the advance notice for support. Sends nothing. Wires modules; no
 * logic here.
 */
import type { Argv } from 'yargs';

import { EXIT, UsageError } from '../../core/index.js';
import { draftNotice, formatNotice, parseStartAt } from '../../guard/index.js';
import { planScenario } from '../../run/index.js';
import { loadScenario } from '../../scenario/index.js';
import type { Io } from '../io.js';

export function noticeOptions<T>(y: Argv<T>) {
  return y
    .positional('scenario', {
      type: 'string',
      demandOption: true,
      describe: 'Scenario file (YAML or JSON) of a sandbox or production load test',
    })
    .option('at', {
      type: 'string',
      demandOption: true,
      describe: 'When the test would start (ISO date-time with a zone, or a date = 00:00 UTC)',
    })
    .option('announce-on', {
      type: 'string',
      describe: 'The day the notice is sent to support (YYYY-MM-DD, UTC); default today',
    })
    .option('json', { type: 'boolean', default: false, describe: 'Print the notice as JSON' });
}

type NoticeArgs = Awaited<ReturnType<typeof noticeOptions>['argv']>;

/** Exit 0 when the start is allowed and the guard would accept the run with this notice; 3 when not. */
export async function runNotice(args: NoticeArgs, io: Io, nowMs: number = Date.now()): Promise<number> {
  const at = parseStartAt(args.at);
  if ('problem' in at) throw new UsageError(at.problem);
  if (at.ms < nowMs)
    throw new UsageError(
      `--at ${args.at}: that is in the past (now ${new Date(nowMs).toISOString()}); expected the start of a test still to come`,
    );
  const announceOn = args['announce-on'] ?? new Date(nowMs).toISOString().slice(0, 10);
  const day = parseStartAt(announceOn);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(announceOn) || 'problem' in day)
    throw new UsageError(`--announce-on: expected a date like 2026-11-26 (UTC), got "${announceOn}"`);
  const scenario = await loadScenario(args.scenario);
  if (scenario.target.environment === 'mock') {
    throw new UsageError(
      `${args.scenario}: target.environment is mock; an advance notice is for sandbox and production load tests`,
      'nothing to announce for the mock',
    );
  }
  const notice = draftNotice(planScenario(scenario, args.scenario, 1).plan, at.ms, announceOn);
  const exitCode = notice.startAllowed && notice.guard.allowed ? EXIT.pass : EXIT.refusedByGuard;
  if (args.json) {
    const { guard, ...rest } = notice;
    io.stdout(`${JSON.stringify({ ...rest, guard: { allowed: guard.allowed, reasons: guard.reasons } }, null, 2)}\n`);
  } else {
    io.stdout(`${formatNotice(notice).join('\n')}\n`);
    io.stdout('\nNothing was sent: notice drafts text only.\n');
  }
  return exitCode;
}
