/**
 * `loadproof deid`: one document through the de-identification chain, against a scenario's target
 * or the embedded mock. Like every command that sends, it asks the guard first, on the traffic it
 * will send (authorizeDeid): the document's pieces and seams, and the re-asked halves its budget
 * allows, each with its 429 retries, all within one minute (a fast service answers that quickly), at
 * its concurrency. Refused: exit 3 and nothing sent, not even the token call. The chain then never
 * sends more identification requests than were judged. The token and the client secret are
 * registered as secrets before any output.
 */
import {
  ApiCallError,
  type CallRecord,
  ChainError,
  fetchToken,
  httpChainCalls,
  MAX_ATTEMPTS,
  MAX_RETRY_WAIT_S,
} from '../client/index.js';
import { RunFailure, type SecretMask, type SendPermit, TimeScale, UsageError } from '../core/index.js';
import { authorize, type GuardDecision } from '../guard/index.js';
import { buildPlan } from '../plan/index.js';
import type { Phase, Scenario } from '../scenario/index.js';
// From the defaults, not the route: every CLI command loads this module, and none should load the mock's server code.
import { MAX_OBFUSCATION_CHARS } from '../spec/index.js';
import type { ResolvedTarget } from '../target/index.js';
import { readRegularText, type SplitLimits } from '../texts/index.js';
import { DEFAULT_CHAIN_OPTIONS, deidentify, type DeidResult, documentPieces, identifyBudget } from './chain.js';

/**
 * The largest document `deid` takes, in characters: it is obfuscated whole in one call, and the mock's
 * obfuscation takes at most this much (the spec gives obfuscation no number). About 130 pieces at the
 * default split; against a real environment the guard then holds its worst case to the envelope.
 */
export const MAX_DEID_DOCUMENT_CHARS = MAX_OBFUSCATION_CHARS;
/** The same bound in bytes, as read (a file or standard input): 4 UTF-8 bytes a character at most, and a BOM. */
export const MAX_DEID_DOCUMENT_BYTES = 4 * MAX_DEID_DOCUMENT_CHARS + 3;

const tooLarge = (name: string, what: string): UsageError =>
  new UsageError(
    `${name}: ${what}; loadproof deid takes a document of at most ${MAX_DEID_DOCUMENT_CHARS} characters (${MAX_DEID_DOCUMENT_BYTES} bytes as read): it is obfuscated in one call, and the mock's obfuscation takes at most ${MAX_OBFUSCATION_CHARS}`,
    'nothing was sent; split the document into smaller ones',
  );

/** A document file: a regular file within the byte bound, refused before it is read whole when it is larger. */
export function readDocumentFile(file: string): { readonly text: string; readonly notUtf8: boolean } {
  const read = readRegularText(file, file, { maxBytes: MAX_DEID_DOCUMENT_BYTES });
  if ('tooLarge' in read) throw tooLarge(file, `${read.tooLarge} bytes`);
  if ('problem' in read)
    throw new UsageError(`${read.problem}; expected a text file, or - for standard input`, 'nothing was sent');
  return read;
}

/**
 * Refuses standard input that passed the byte bound (its reader stopped there) or any document over the character
 * bound.
 */
export function checkDocumentSize(text: string | undefined, name: string): string {
  if (text === undefined) throw tooLarge(name, `more than ${MAX_DEID_DOCUMENT_BYTES} bytes (reading stopped there)`);
  if (text.length > MAX_DEID_DOCUMENT_CHARS) throw tooLarge(name, `the document has ${text.length} characters`);
  return text;
}

interface DeidTraffic {
  readonly text: string;
  readonly scenario: Scenario;
  readonly split: SplitLimits;
  readonly concurrency: number;
  readonly timeScale: number;
  /** When it is sent (epoch ms): now. */
  readonly startAtMs: number;
  /** Tests only: a real environment at a loopback URL is judged as real. */
  readonly loopbackAsReal: boolean;
}

interface AuthorizedDeid {
  readonly decision: GuardDecision;
  readonly permit: SendPermit;
  /**
   * The identification requests judged, which the chain may not pass (a real environment); unbounded against a mock.
   */
  readonly maxIdentifyRequests: number;
}

/**
 * The guard's decision on the one-shot's traffic, and its permit; a GuardRefusal (exit 3) when refused.
 * Against a real environment the re-asks are held to the budget judged. A mock is held to the target
 * rule only (the spec's traffic rules are about the real service), so there re-asking keeps its own bound
 * (twice deep), judged at its worst case: each piece and, per level, three times as many parts.
 */
export function authorizeDeid(t: DeidTraffic): AuthorizedDeid {
  const pieces = documentPieces(t.text, t.split).pieces.length;
  const real = t.scenario.target.environment !== 'mock';
  const maxIdentifyRequests = real ? identifyBudget(pieces) : Number.POSITIVE_INFINITY;
  const judged = real ? maxIdentifyRequests : pieces * (1 + 3 + 9);
  const plan = buildPlan(deidScenario(t.scenario, judged + 1, t.concurrency), { timeScale: t.timeScale });
  const { decision, permit } = authorize(plan, { startAtMs: t.startAtMs, loopbackAsReal: t.loopbackAsReal });
  return { decision, permit, maxIdentifyRequests };
}

/**
 * The one-shot as a scenario the guard judges like any run: `calls` requests (the identification budget and
 * the obfuscation call) in one minute, each retried on 429 as the one-shot's calls are (MAX_ATTEMPTS, waits of
 * up to MAX_RETRY_WAIT_S), at most `concurrency` in flight. A slower service spreads them; never more in a minute.
 */
function deidScenario(scenario: Scenario, calls: number, concurrency: number): Scenario {
  const phases: Phase[] = [{ name: 'one document', durationMs: 60_000, fromRpm: calls, toRpm: calls, warmupMs: 0 }];
  return {
    ...scenario,
    mode: 'identification',
    phases,
    maxInFlight: concurrency,
    arrivals: { ...scenario.arrivals, process: 'constant' },
    on429: { policy: 'retry', maxAttempts: MAX_ATTEMPTS, baseDelayMs: 1000, maxDelayMs: MAX_RETRY_WAIT_S * 1000 },
  };
}

interface DeidOnceOptions {
  readonly text: string;
  readonly target: ResolvedTarget;
  readonly split: SplitLimits;
  readonly concurrency: number;
  /** The identification requests the guard judged (authorizeDeid). */
  readonly maxIdentifyRequests: number;
  readonly style: 'tag' | 'mask';
  /** Per call, model ms (÷ time scale on the wall). */
  readonly timeoutMs: number;
  readonly timeScale: number;
  readonly secrets: SecretMask;
}

interface DeidOnceOutcome {
  readonly result: DeidResult;
  readonly calls: readonly CallRecord[];
}

export async function deidOnce(options: DeidOnceOptions): Promise<DeidOnceOutcome> {
  const { target, secrets } = options;
  secrets.add(target.clientSecret);
  for (const secret of target.proxy?.secrets ?? []) secrets.add(secret);
  const calls: CallRecord[] = [];
  const session = {
    target,
    timeoutMs: TimeScale.of(options.timeScale).toWallMs(options.timeoutMs),
    onCall: (c: CallRecord) => calls.push(c),
    onToken: (token: string) => secrets.add(token),
  };
  try {
    const token = await fetchToken(session);
    const result = await deidentify(options.text, httpChainCalls(session, token, options.style), {
      split: options.split,
      concurrency: options.concurrency,
      maxResplits: DEFAULT_CHAIN_OPTIONS.maxResplits,
      maxIdentifyRequests: options.maxIdentifyRequests,
    });
    return { result, calls };
  } catch (error) {
    throw asRunFailure(error, target);
  }
}

/**
 * A failed call as the CLI reports it (exit 4): authentication, an unreachable target, or an answer the chain cannot
 * use.
 */
function asRunFailure(error: unknown, target: ResolvedTarget): unknown {
  if (error instanceof ApiCallError) {
    if (error.failure !== undefined) return error.failure;
    if (error.endpoint === 'token' && error.status !== null)
      return new RunFailure('AUTH_FAILED', error.message, `credentials from ${target.credentialSource}`);
    return new RunFailure(error.status === null ? 'TARGET_UNREACHABLE' : 'RUN_FAILED', error.message);
  }
  if (error instanceof ChainError)
    return new RunFailure(
      'RUN_FAILED',
      error.message,
      'the answer did not have the shape loadproof expects of the API',
    );
  return error;
}
