/**
 * `loadproof notice <scenario> --at <start>`: writes the advance notice for support (notice.md) and tells the user
 * what to do with it. Sends nothing. Wires modules; no logic here.
 */
import type { Argv } from 'yargs';

import { EXIT, UsageError, writeAtomically } from '../../core/index.js';
import {
  checkNoticeParties,
  draftNotice,
  formatNoticeInstructions,
  noticeMarkdown,
  parseShardCount,
  parseStartAt,
  parseWindowFlag,
} from '../../guard/index.js';
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
      describe: 'When the test would start at the earliest (ISO date-time with a zone, or a date = 00:00 UTC)',
    })
    .option('window', {
      type: 'string',
      describe:
        "The start window, from --at (1m to 24h, e.g. 45m): a start that late is still announced; default the run's length to the quarter hour",
    })
    .option('announce-on', {
      type: 'string',
      describe: 'The day the notice is sent to support (YYYY-MM-DD, UTC); default today',
    })
    .option('contact', { type: 'string', describe: 'Who support reaches about the test, e.g. "Jane Roe <jane@x.org>"' })
    .option('client-id', {
      type: 'string',
      describe: 'The OAuth client_id the test uses, shown in the notice (opt-in; never the secret)',
    })
    .option('shards', {
      type: 'string',
      describe:
        'How many shards the run will be sent in (run --shard i/n: n, default 1): each shard is a process with its own OAuth token call, and the notice says so',
    })
    .option('out', { type: 'string', default: 'notice.md', describe: 'Where the notice to send is written' })
    .option('json', {
      type: 'boolean',
      default: false,
      describe: 'Print the notice as JSON (notice.md is written too)',
    });
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
  const windowMs = args.window === undefined ? undefined : parseWindowFlag(args.window);
  const scenario = await loadScenario(args.scenario);
  const secret = io.env[scenario.target.credentials.clientSecretEnv];
  io.secrets.add(secret);
  const parties = {
    windowMs,
    contact: args.contact,
    clientId: args['client-id'],
    shards: parseShardCount(args.shards),
  };
  checkNoticeParties(parties, secret);
  if (scenario.target.environment === 'mock') {
    throw new UsageError(
      `${args.scenario}: target.environment is mock; an advance notice is for sandbox and production load tests`,
      'nothing to announce for the mock',
    );
  }
  const notice = draftNotice(planScenario(scenario, args.scenario, 1).plan, at.ms, announceOn, parties);
  const sendable = notice.startAllowed && notice.guard.allowed;
  // A notice is written only for a run the guard will accept once support has answered: no text to send in vain.
  if (sendable) {
    const written = await writeAtomically(args.out, noticeMarkdown(notice));
    if (written.error !== null)
      throw new UsageError(`--out ${args.out}: the notice could not be written: ${written.error}`, 'nothing was sent');
  }
  if (args.json) {
    const { guard, ...rest } = notice;
    const json = {
      ...rest,
      file: sendable ? args.out : null,
      guard: { allowed: guard.allowed, reasons: guard.reasons },
    };
    io.stdout(`${JSON.stringify(json, null, 2)}\n`);
  } else {
    io.stdout(`${formatNoticeInstructions(notice, sendable ? args.out : null).join('\n')}\n`);
    io.stdout('\nNothing was sent: notice drafts text only.\n');
  }
  return sendable ? EXIT.pass : EXIT.refusedByGuard;
}
