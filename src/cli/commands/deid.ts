/** `loadproof deid <file|->`: one document through the de-identification chain. Wires modules; no logic here. */
import type { Argv } from 'yargs';

import type { CallRecord } from '../../client/index.js';
import { TimeScale, UsageError } from '../../core/index.js';
import {
  authorizeDeid,
  checkDocumentSize,
  DEFAULT_CHAIN_OPTIONS,
  deidJson,
  deidOnce,
  deidRecall,
  type DeidResult,
  deidSummaryLine,
  deidVerdict,
  locateExpected,
  MAX_DEID_DOCUMENT_BYTES,
  mockCaveat,
  readDocumentFile,
  readPhiAnnotations,
  recallTable,
  replacementTable,
} from '../../deid/index.js';
import { describeDecision } from '../../guard/index.js';
import type { PlantedPhi } from '../../phi/index.js';
import type { TargetKind } from '../../scenario/index.js';
import { IDENTIFICATION_LIMITS, PROFILE_NAMES } from '../../spec/index.js';
import { resolveCallTarget, targetScenario } from '../../target/index.js';
import { DEFAULT_SPLIT_LIMITS, maxPieceLength, MIN_PIECE_CHARS_FOR_SEAMS } from '../../texts/index.js';
import type { Io } from '../io.js';
import { CA_OPTION, CREDENTIALS_OPTION, LOOPBACK_AS_REAL_OPTION } from './target-options.js';

export function deidOptions<T>(y: Argv<T>) {
  return y
    .positional('file', {
      type: 'string',
      demandOption: true,
      describe: 'The document (a text file), or - for standard input',
    })
    .option('scenario', {
      type: 'string',
      describe: "Send to this scenario's target, with its credentials (default: the embedded mock)",
    })
    .option('time-scale', { type: 'number', default: 1, describe: 'Embedded mock only: k times fast' })
    .option('mock-profile', { choices: PROFILE_NAMES, describe: 'Embedded mock: its profile' })
    .option('ca', CA_OPTION)
    .option('credentials', CREDENTIALS_OPTION)
    .option('style', {
      choices: ['tag', 'mask'] as const,
      default: 'tag' as const,
      describe: 'Obfuscation: [TYPE] tags, or masks of the same length',
    })
    .option('concurrency', {
      type: 'number',
      default: DEFAULT_CHAIN_OPTIONS.concurrency,
      describe: 'Pieces identified at once (1: in order)',
    })
    .option('max-tokens', {
      type: 'number',
      default: DEFAULT_SPLIT_LIMITS.maxTokens,
      describe: 'Split documents into pieces of at most this many estimated tokens…',
    })
    .option('margin', { type: 'number', default: DEFAULT_SPLIT_LIMITS.margin, describe: '…less this share (0 to 0.9)' })
    .option('expect', {
      type: 'string',
      describe:
        'The PHI the document is known to hold: a JSON array or NDJSON of {"text", "kind"}; recall on it is reported, and any item left in clear is exit 1',
    })
    .option('show-values', {
      type: 'boolean',
      default: false,
      describe:
        'Show the original text of each replaced entity and known item left in clear (it is PHI: off by default)',
    })
    .option('json', {
      type: 'boolean',
      default: false,
      describe:
        'Print {text, pieces, entities, foundStillPresent, phi, mockCaveat, timeScale, calls} as JSON on stdout (each call: latencyWallMs, wall time)',
    })
    .option('allow-loopback-as-real', LOOPBACK_AS_REAL_OPTION);
}

type DeidArgs = Awaited<ReturnType<typeof deidOptions>['argv']>;

export async function runDeid(args: DeidArgs, io: Io): Promise<number> {
  const timeScale = TimeScale.of(args['time-scale']).k;
  checkSplitOptions(args);
  // yargs gives a lone "-" positional as "" (an empty file name means nothing else).
  const text = await readDocument(args.file === '' ? '-' : args.file, io);
  // Known PHI is read and found in the document before anything is sent.
  const planted =
    args.expect === undefined
      ? undefined
      : locateExpected(text, await readPhiAnnotations(args.expect), args.expect, args['show-values']);
  const scenario = await targetScenario(args.scenario);
  const split = { maxTokens: args['max-tokens'], margin: args.margin };
  // The guard first, on what this document will send: refused, nothing is sent (exit 3).
  const { decision, permit, maxIdentifyRequests } = authorizeDeid({
    text,
    scenario,
    split,
    concurrency: args.concurrency,
    timeScale,
    startAtMs: Date.now(),
    loopbackAsReal: args['allow-loopback-as-real'],
  });
  if (decision.real) for (const line of describeDecision(decision)) io.stderr(`${line}\n`);
  const target = await resolveCallTarget(scenario, permit, {
    timeScale,
    mockProfile: args['mock-profile'],
    env: io.env,
    credentialsFile: args.credentials,
    caFile: args.ca,
  });
  try {
    for (const warning of target.warnings) io.stderr(`loadproof: warning: ${warning}\n`);
    io.stderr(
      `deid: sending one document (${text.length} characters) to ${target.kind === 'real' ? `${target.environment} ` : ''}${target.baseUrl}${target.proxy === undefined ? '' : ` through proxy ${target.proxy.shown}`}\n`,
    );
    const { result, calls } = await deidOnce({
      text,
      target,
      split,
      concurrency: args.concurrency,
      maxIdentifyRequests,
      style: args.style,
      timeoutMs: scenario.timeoutMs,
      timeScale,
      secrets: io.secrets,
    });
    return printOutcome(io, args, { text, planted, result, calls, targetKind: target.kind, timeScale });
  } finally {
    await target.embedded?.close();
  }
}

interface Outcome {
  readonly text: string;
  readonly planted: readonly PlantedPhi[] | undefined;
  readonly result: DeidResult;
  readonly calls: readonly CallRecord[];
  readonly targetKind: TargetKind;
  readonly timeScale: number;
}

/** The obfuscated text (or the JSON) on stdout, the tables, the mock's caveat and the verdict on stderr; the exit. */
function printOutcome(io: Io, args: DeidArgs, o: Outcome): number {
  const { text, result, calls } = o;
  const recall = o.planted === undefined ? undefined : deidRecall(text, o.planted, result);
  const caveat = mockCaveat(o.targetKind);
  const verdict = deidVerdict(result, recall);
  const showValues = args['show-values'];
  if (args.json) {
    const json = deidJson(result, text, calls, { showValues, timeScale: o.timeScale, recall, mockCaveat: caveat });
    io.stdoutData(`${JSON.stringify(json, null, 2)}\n`);
  } else {
    // The document is data: exact into a pipe or file (the Io escapes it only on a terminal).
    io.stdoutData(result.text.endsWith('\n') ? result.text : `${result.text}\n`);
    const tables = [
      deidSummaryLine(result, calls, text),
      ...replacementTable(result, text, showValues),
      ...(recall === undefined ? [] : recallTable(recall, text, showValues)),
    ];
    io.stderr(`${tables.join('\n')}\n`);
  }
  for (const line of [...(caveat === null ? [] : [`deid: ${caveat}`]), ...verdict.lines]) io.stderr(`${line}\n`);
  return verdict.exit;
}

/** The split's options, checked before the document is read. */
function checkSplitOptions(args: DeidArgs): void {
  if (!(Number.isInteger(args.concurrency) && args.concurrency >= 1 && args.concurrency <= 64))
    throw new UsageError(`--concurrency: expected an integer from 1 to 64, got ${args.concurrency}`);
  if (!(Number.isInteger(args['max-tokens']) && args['max-tokens'] >= 16))
    throw new UsageError(`--max-tokens: expected an integer of at least 16, got ${args['max-tokens']}`);
  if (!(args.margin >= 0 && args.margin <= 0.9))
    throw new UsageError(`--margin: expected a fraction from 0 to 0.9, got ${args.margin}`);
  if (args['max-tokens'] > IDENTIFICATION_LIMITS.maxTextTokens)
    throw new UsageError(
      `--max-tokens: expected at most the spec's ${IDENTIFICATION_LIMITS.maxTextTokens}, got ${args['max-tokens']}`,
    );
  const pieceChars = maxPieceLength({ maxTokens: args['max-tokens'], margin: args.margin });
  if (pieceChars < MIN_PIECE_CHARS_FOR_SEAMS) {
    throw new UsageError(
      `--max-tokens ${args['max-tokens']} --margin ${args.margin}: pieces of ${pieceChars} characters; expected at least ${MIN_PIECE_CHARS_FOR_SEAMS}, room for the seams that find an entity straddling a cut`,
      'nothing was sent',
    );
  }
}

async function readDocument(file: string, io: Io): Promise<string> {
  let text: string;
  // Standard input is read up to the same bound as a file, and no further.
  if (file === '-')
    text = checkDocumentSize(await io.readStdin(MAX_DEID_DOCUMENT_BYTES), 'standard input').replace(/^\uFEFF/, '');
  else {
    const read = readDocumentFile(file);
    if (read.notUtf8) io.stderr(`deid: warning: ${file} is not valid UTF-8; its bad bytes are sent as U+FFFD\n`);
    text = checkDocumentSize(read.text, file);
  }
  if (text.trim() === '')
    throw new UsageError(
      `${file === '-' ? 'standard input' : file}: the document is empty; expected text to de-identify`,
      'nothing was sent',
    );
  return text;
}
