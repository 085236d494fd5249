/**
 * `loadproof deid`: one document through the de-identification chain, against a scenario's target
 * or the embedded mock. The token and the client secret are registered as secrets before any output.
 */
import { RunFailure, UsageError } from '../core/errors.js';
// From the defaults, not the route: every CLI command loads this module, and none should load the mock's server code.
import { MAX_OBFUSCATION_CHARS } from '../mock/defaults.js';
import type { SecretMask } from '../core/redact.js';
import { type SplitLimits } from '../chunk/index.js';
import { ApiCallError, type CallRecord, ChainError, DEFAULT_CHAIN_OPTIONS, type DeidResult, deidentify, fetchToken, httpChainCalls } from '../deid/index.js';
import type { ResolvedTarget } from '../run/target.js';

export interface DeidOnceOptions {
  readonly text: string;
  readonly target: ResolvedTarget;
  readonly split: SplitLimits;
  readonly concurrency: number;
  readonly style: 'tag' | 'mask';
  /** Per call, model ms (÷ time scale on the wall). */
  readonly timeoutMs: number;
  readonly timeScale: number;
  readonly secrets: SecretMask;
}

export interface DeidOnceOutcome {
  readonly result: DeidResult;
  readonly calls: readonly CallRecord[];
}

export async function deidOnce(options: DeidOnceOptions): Promise<DeidOnceOutcome> {
  const { target, secrets } = options;
  // loadproof's mock obfuscates at most MAX_OBFUSCATION_CHARS: a longer document would fail at its last call, after every piece was sent.
  if (target.kind !== 'real' && target.kind !== 'loopback-stub' && options.text.length > MAX_OBFUSCATION_CHARS) {
    throw new UsageError(`the document has ${options.text.length} characters; the mock's obfuscation takes at most ${MAX_OBFUSCATION_CHARS}`, 'nothing was sent; split the document into smaller ones');
  }
  secrets.add(target.clientSecret);
  const calls: CallRecord[] = [];
  const session = {
    target,
    timeoutMs: options.timeoutMs / options.timeScale,
    onCall: (c: CallRecord) => calls.push(c),
    onToken: (token: string) => secrets.add(token),
  };
  try {
    const token = await fetchToken(session);
    const result = await deidentify(options.text, httpChainCalls(session, token, options.style), { split: options.split, concurrency: options.concurrency, maxResplits: DEFAULT_CHAIN_OPTIONS.maxResplits });
    return { result, calls };
  } catch (error) {
    throw asRunFailure(error, target);
  }
}

/** A failed call as the CLI reports it (exit 4): authentication, an unreachable target, or an answer the chain cannot use. */
export function asRunFailure(error: unknown, target: ResolvedTarget): unknown {
  if (error instanceof ApiCallError) {
    if (error.endpoint === 'token' && error.status !== null) return new RunFailure('AUTH_FAILED', error.message, `credentials from ${target.credentialSource}`);
    return new RunFailure(error.status === null ? 'TARGET_UNREACHABLE' : 'RUN_FAILED', error.message);
  }
  if (error instanceof ChainError) return new RunFailure('RUN_FAILED', error.message, 'the answer did not have the shape loadproof expects of the API');
  return error;
}
