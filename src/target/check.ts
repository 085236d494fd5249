/**
 * `loadproof check <scenario>`: the preflight a user runs before booking a load test. One call to
 * each endpoint of the spec against the scenario's target — token, Normalize session, identification
 * (one of the scenario's own texts), obfuscation (of that text, with what identification found) —
 * each judged against what the spec says its answer is; then the guard's decision on the load test
 * itself. The guard is asked first, as by every command that sends: a load test it refuses is refused
 * here too (exit 3) before any call, not even the token's, so the calls are covered by what it allowed.
 * A handful of requests, stated before they are sent; no text or token is ever printed.
 */
import {
  apiCall,
  ApiCallError,
  type ApiSession,
  type CallRecord,
  ChainError,
  HEADER_SAFE,
  tokenRequestBody,
} from '../client/index.js';
import { EXIT, type SecretMask } from '../core/index.js';
import type { GuardDecision } from '../guard/index.js';
import type { ApiEndpoint } from '../spec/index.js';
import type { ResolvedTarget } from './resolve.js';

/** The calls, in order, as they are announced. */
export const CHECK_CALLS: readonly ApiEndpoint[] = ['token', 'session', 'identification', 'obfuscation'];

export interface CheckStep {
  readonly endpoint: ApiEndpoint;
  /** Its final status, or null when it got no answer (or was not sent: an earlier call failed). */
  readonly status: number | null;
  /** Wall ms, or null when not sent. */
  readonly latencyMs: number | null;
  /** The answer was what the spec says. */
  readonly ok: boolean;
  /** What the answer looked like, sentence by sentence (never a token, text or entity value). */
  readonly findings: readonly string[];
}

export interface CheckOutcome {
  readonly steps: readonly CheckStep[];
  readonly guard: GuardDecision;
  /**
   * 0: every answer as the spec says (the guard allowed the load test before any call); 1: an answer that is not; 4: no
   * answer, or no token.
   */
  readonly exitCode: number;
  /**
   * Why it is 4: no answer (TARGET_UNREACHABLE), or an answer without a usable token (AUTH_FAILED), as run, probe and
   * deid say.
   */
  readonly failure?: CheckFailure;
}

interface CheckOptions {
  /** The guard's decision on the load test, which allowed it (its permit is the target's): asked before any call. */
  readonly guard: GuardDecision;
  readonly target: ResolvedTarget;
  /** The text identification is given: the scenario's first. */
  readonly text: string;
  readonly secrets: SecretMask;
  /** Per call, wall ms. */
  readonly timeoutMs: number;
}

const NOT_SENT = { status: null as number | null, latencyMs: null as number | null, without429RetryAfter: 0 };

/** A judgement as shown: a problem ("✖ …") says the answer is not as the spec says. */
const asFinding = (f: string): string => f.replace(/^✖ /, 'NOT AS THE SPEC SAYS: ');
/** Why a check could not go on: no answer, the target's TLS (a certificate, HTTP/2 only), or no usable token. */
type CheckFailure = 'TARGET_UNREACHABLE' | 'AUTH_FAILED' | 'TLS_CERTIFICATE' | 'HTTP_PROTOCOL';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function runCheck(options: CheckOptions): Promise<CheckOutcome> {
  const { target, secrets } = options;
  secrets.add(target.clientSecret);
  for (const secret of target.proxy?.secrets ?? []) secrets.add(secret);
  const checker = new Checker(options);
  const accessToken = await checkToken(checker, options);
  if (accessToken === undefined) {
    for (const e of CHECK_CALLS.slice(1)) checker.skipped(e, 'no token');
  } else {
    await checkCalls(checker, accessToken, options.text);
  }
  const { guard } = options;
  const { steps, unreachable, tls } = checker;
  const exitCode =
    unreachable || accessToken === undefined ? EXIT.runFailed : steps.some((s) => !s.ok) ? EXIT.slaNotMet : EXIT.pass;
  const failure: CheckFailure | undefined =
    tls ?? (unreachable ? 'TARGET_UNREACHABLE' : accessToken === undefined ? 'AUTH_FAILED' : undefined);
  return { steps, guard, exitCode, ...(failure === undefined ? {} : { failure }) };
}

/** The check's steps as they are sent and judged, and whether a call got no answer. */
class Checker {
  readonly steps: CheckStep[] = [];
  unreachable = false;
  /** The last call's status and time, and its 429s without Retry-After, as the client recorded them. */
  private last = NOT_SENT;
  /** The target's TLS refused a call: which way. */
  tls: 'TLS_CERTIFICATE' | 'HTTP_PROTOCOL' | undefined;
  readonly session: ApiSession;

  constructor(options: CheckOptions) {
    const { secrets } = options;
    this.session = {
      target: options.target,
      timeoutMs: options.timeoutMs,
      onCall: (c: CallRecord) =>
        (this.last = { status: c.status, latencyMs: c.latencyMs, without429RetryAfter: c.without429RetryAfter }),
      onToken: (t: string) => secrets.add(t),
    };
  }

  /** Sends one call and judges its answer; a call that fails is a step that is not ok. */
  async step<T>(endpoint: ApiEndpoint, send: () => Promise<T>, judge: (value: T) => string[]): Promise<T | undefined> {
    this.last = NOT_SENT;
    try {
      const value = await send();
      const judged = judge(value);
      const usable = !judged.some((f) => f.startsWith('✖ '));
      // A missing Retry-After fails the step, but its answer is still what the calls after it need.
      const spec = this.retryAfterProblem();
      this.push(endpoint, usable && spec.length === 0, [...judged, ...spec].map(asFinding));
      return usable ? value : undefined;
    } catch (error) {
      if (!(error instanceof ApiCallError || error instanceof ChainError)) throw error;
      if (error instanceof ApiCallError && error.status === null) this.unreachable = true;
      const tls = error instanceof ApiCallError ? error.failure : undefined;
      if (tls !== undefined) this.tls ??= tls.code as 'TLS_CERTIFICATE' | 'HTTP_PROTOCOL';
      const hint = tls?.hint === undefined ? [] : [tls.hint];
      this.push(endpoint, false, [error.message, ...hint, ...this.retryAfterProblem().map(asFinding)]);
      return undefined;
    }
  }

  private push(endpoint: ApiEndpoint, ok: boolean, findings: string[]): void {
    const { status, latencyMs } = this.last;
    this.steps.push({ endpoint, status, latencyMs, ok, findings });
  }

  /** A 429 without Retry-After fails the spec ("A 429 response carries the Retry-After header"), though retried. */
  private retryAfterProblem(): string[] {
    const n = this.last.without429RetryAfter;
    if (n === 0) return [];
    return [
      `✖ ${n === 1 ? '1 answer was' : `${n} answers were`} 429 without a Retry-After of whole seconds, which the spec requires on every 429 (loadproof backs off on its own and sends again, while attempts remain)`,
    ];
  }

  skipped(endpoint: ApiEndpoint, why: string): void {
    this.steps.push({ endpoint, status: null, latencyMs: null, ok: false, findings: [`not sent: ${why}`] });
  }
}

/** The token call; the access token when it is one a header can carry. */
async function checkToken(checker: Checker, options: CheckOptions): Promise<string | undefined> {
  const { target, secrets } = options;
  const token = await checker.step(
    'token',
    async () => {
      const res = await apiCall(checker.session, 'token', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: tokenRequestBody(target),
      });
      return bodyOf(res.text);
    },
    (body) => judgeToken(body, secrets),
  );
  // A token a header cannot carry is not used: the calls after it would only fail to leave.
  return typeof token?.access_token === 'string' && HEADER_SAFE.test(token.access_token)
    ? token.access_token
    : undefined;
}

/** The token answer: an access_token string a header can carry (added to the secrets), and what else it says. */
function judgeToken(body: Record<string, unknown> | undefined, secrets: SecretMask): string[] {
  const t = body?.access_token;
  if (typeof t === 'string' && t !== '') secrets.add(t);
  return [
    typeof t !== 'string' || t === ''
      ? '✖ no access_token string in the answer'
      : HEADER_SAFE.test(t)
        ? `access_token: a string of ${t.length} characters (not shown)`
        : `✖ access_token: a string of ${t.length} characters (not shown) that a header cannot carry (only visible ASCII, RFC 6750): not used`,
    ...(typeof body?.token_type === 'string' ? [`token_type ${body.token_type}`] : []),
    ...(typeof body?.expires_in === 'number' ? [`expires_in ${body.expires_in} s`] : []),
  ];
}

/** The calls made with the token: a Normalize session, identification of `text`, obfuscation of what it found. */
async function checkCalls(checker: Checker, accessToken: string, text: string): Promise<void> {
  const { session } = checker;
  const bearer = { authorization: `Bearer ${accessToken}`, accept: 'application/json' };
  await checker.step(
    'session',
    async () => bodyOf((await apiCall(session, 'session', { method: 'GET', headers: bearer })).text),
    (body) => {
      const id = body?.session_id;
      return [
        typeof id !== 'string'
          ? '✖ no session_id string in the answer'
          : UUID.test(id)
            ? `session_id ${id}: UUID-shaped`
            : `✖ session_id ${JSON.stringify(id.slice(0, 64))} is not UUID-shaped`,
      ];
    },
  );
  const json = { ...bearer, 'content-type': 'application/json' };
  const identified = await checker.step(
    'identification',
    async () =>
      bodyOf(
        (await apiCall(session, 'identification', { method: 'POST', headers: json, body: JSON.stringify({ text }) }))
          .text,
      ),
    (body) => judgeEntities(body, text),
  );
  const entities = Array.isArray(identified?.entities)
    ? (identified.entities as { type: string; start: number; end: number }[])
    : undefined;
  if (entities === undefined) {
    checker.skipped('obfuscation', 'identification gave no entities to obfuscate');
    return;
  }
  await checker.step(
    'obfuscation',
    async () =>
      bodyOf(
        (
          await apiCall(session, 'obfuscation', {
            method: 'POST',
            headers: json,
            body: JSON.stringify({ text, entities: entities.map(({ type, start, end }) => ({ type, start, end })) }),
          })
        ).text,
      ),
    (body) => judgeObfuscation(body, text, entities),
  );
}

/** Obfuscation's answer: a text in which none of the entities' texts remains. */
function judgeObfuscation(
  body: Record<string, unknown> | undefined,
  text: string,
  entities: readonly { type: string; start: number; end: number }[],
): string[] {
  if (typeof body?.text !== 'string') return ['✖ no text string in the answer'];
  const left = entities.filter((e) => (body.text as string).includes(text.slice(e.start, e.end)));
  return [
    `an obfuscated text of ${body.text.length} characters`,
    left.length === 0
      ? `none of the ${entities.length} entities' texts remains in it`
      : `✖ ${left.length} of the ${entities.length} entities' texts remain in it (${left.map((e) => e.type).join(', ')})`,
  ];
}

function bodyOf(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Identification's answer: entities with offsets inside the text, whose `text` (when given) is the text there. */
function judgeEntities(body: Record<string, unknown> | undefined, text: string): string[] {
  if (body === undefined) return ['✖ the answer is not a JSON object'];
  if (!Array.isArray(body.entities)) return ['✖ no "entities" array in the answer'];
  const bad: string[] = [];
  const types = new Map<string, number>();
  body.entities.forEach((e: unknown, i: number) => {
    const { type, start, end, text: said } = (e ?? {}) as Record<string, unknown>;
    if (typeof type !== 'string' || !Number.isInteger(start) || !Number.isInteger(end))
      return bad.push(`entities[${i}] lacks a string type or integer start/end`);
    const [s, t] = [start as number, end as number];
    if (!(s >= 0 && s < t && t <= text.length))
      return bad.push(`entities[${i}] is at [${s}, ${t}), outside a text of ${text.length} characters`);
    if (said !== undefined && said !== text.slice(s, t))
      return bad.push(`entities[${i}]'s text is not the text at its offsets`);
    types.set(type, (types.get(type) ?? 0) + 1);
    return undefined;
  });
  const kinds = [...types].map(([t, n]) => `${t} ${n}`).join(', ');
  return [
    `${body.entities.length} entities${kinds === '' ? '' : ` (${kinds})`} in a text of ${text.length} characters`,
    bad.length === 0
      ? "every entity's offsets fall inside the text and match its text"
      : `✖ ${bad.slice(0, 3).join('; ')}${bad.length > 3 ? `; and ${bad.length - 3} more` : ''}`,
    ...(typeof body.truncated === 'boolean' ? [`truncated at the output cap: ${body.truncated ? 'yes' : 'no'}`] : []),
  ];
}
