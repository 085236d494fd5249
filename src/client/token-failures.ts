/**
 * How a token call fails, in words: no answer, a 200 without a token a header can carry, or a status the
 * spec gives a meaning (shared/spec/api-spec.md, "Authentication"), with the token endpoint's own words
 * when they are safe to quote. No secret is ever quoted.
 */
import { redact, RunFailure } from '../core/index.js';
import { classifyError } from './classify.js';
import { MAX_ANSWER_BYTES } from './http1/response.js';
import { ProxyTunnelError } from './http1/tunnel.js';
import { describeRedirect, isRedirect } from './redirect.js';
import { tlsFailure } from './tls-failure.js';

/** A token call that failed; `refused`: the token endpoint refused the credentials (401/403). */
export class TokenCallFailed extends Error {
  constructor(
    readonly failure: RunFailure,
    readonly refused: boolean,
  ) {
    super(failure.message);
  }
}

/** Who asked, for the words of a refusal. */
interface Asker {
  readonly audience: string;
  readonly clientSecret: string;
  /** Where the credentials came from. */
  readonly credentialSource: string;
}

/** A token call that got no answer (`timedOut`: our own deadline ended it). */
export function noAnswerFailure(url: string, error: unknown, timedOut: boolean): TokenCallFailed {
  const tls = timedOut ? undefined : tlsFailure(url, error);
  if (tls !== undefined) return new TokenCallFailed(tls, false);
  const outcome = classifyError(error, timedOut);
  // Our timeout's abort is named as the timeout it is (node's AbortError would say ABORT_ERR).
  const code = timedOut ? 'TimeoutError' : ((error as { code?: string }).code ?? (error as Error).name);
  if (!timedOut && error instanceof ProxyTunnelError)
    return new TokenCallFailed(
      new RunFailure(
        'TARGET_UNREACHABLE',
        `cannot get a token from ${url} ${error.message}.`,
        "check the proxy variable named, or list the target's host in NO_PROXY to reach it directly",
      ),
      false,
    );
  if (outcome === 'too_large')
    return new TokenCallFailed(
      new RunFailure(
        'TARGET_UNREACHABLE',
        `cannot get a token from ${url}: its answer is larger than ${MAX_ANSWER_BYTES} bytes (too_large); it was not read past that.`,
        'check target.baseUrl: a token answer is a small JSON object',
      ),
      false,
    );
  return new TokenCallFailed(
    new RunFailure(
      'TARGET_UNREACHABLE',
      `cannot get a token from ${url}: ${outcome} (${code}).`,
      'check target.baseUrl and that the service (or mock) is running',
    ),
    false,
  );
}

/** What the token endpoint answered: its status, its body as a JSON object (when it is one), its Location header. */
interface TokenAnswer {
  readonly status: number;
  readonly parsed: Record<string, unknown> | undefined;
  readonly location?: unknown;
}

/** An answer that gave no token a header can carry. */
export function answerFailure(url: string, answer: TokenAnswer, asker: Asker): TokenCallFailed {
  const { status, parsed } = answer;
  const token = parsed?.access_token;
  // An authentication failure, not the target's: the token endpoint gave nothing usable, as final as a
  // refusal of the credentials. A string here is one a header cannot carry.
  if (status === 200 && typeof token === 'string') {
    const what =
      token === ''
        ? 'an empty access_token'
        : `an access_token of ${token.length} characters that a header cannot carry (it holds a CR, LF, space, control or non-ASCII character; not shown)`;
    return new TokenCallFailed(
      new RunFailure(
        'AUTH_FAILED',
        `cannot authenticate: the token endpoint ${url} answered 200 with ${what}; an OAuth 2.0 access token is visible ASCII (RFC 6750), and loadproof does not send it.`,
        "no request was sent with it; ask the service's support about its tokens",
      ),
      true,
    );
  }
  // A 200 without a usable token (none, a number, null, not JSON): the same authentication failure, in every command.
  if (status === 200) {
    const what =
      parsed === undefined
        ? 'a body that is not a JSON object'
        : token === undefined
          ? 'no access_token'
          : `an access_token that is not a string (${token === null ? 'null' : typeof token})`;
    return new TokenCallFailed(
      new RunFailure(
        'AUTH_FAILED',
        `cannot authenticate: the token endpoint ${url} answered 200 with ${what}; expected {"access_token": "…"} (a string).`,
        "no request was sent; ask the service's support about its tokens",
      ),
      true,
    );
  }
  if (isRedirect(status))
    return new TokenCallFailed(
      new RunFailure(
        'AUTH_FAILED',
        `cannot authenticate: the token endpoint ${url} answered ${describeRedirect(status, answer.location, url)}; not followed: a token request carries the client secret, and goes only to target.baseUrl.`,
        'set target.baseUrl to where the service answers (without a redirect); no load was sent',
      ),
      false,
    );
  const refused = status === 401 || status === 403;
  // The token endpoint answered, and said no: the credentials or the request's configuration, never an unreachable
  // target. Only a busy or failing one (429, 5xx) may be the service's passing trouble.
  const busy = status === 429 || status === 408 || status >= 500;
  return new TokenCallFailed(
    new RunFailure(
      busy ? 'TARGET_UNREACHABLE' : 'AUTH_FAILED',
      explainStatus(status, parsed, asker),
      'no load was sent',
    ),
    refused,
  );
}

/** The spec's meaning of each token-call status, in words (shared/spec/api-spec.md, "Authentication"). */
function explainStatus(status: number, body: Record<string, unknown> | undefined, asker: Asker): string {
  const server = serverWords(body, asker.clientSecret);
  const meaning: Record<number, string> = {
    415: 'the token endpoint did not accept the body as JSON (415 Unsupported Media Type)',
    401: `the client_id or client_secret is wrong (401 Unauthorized); they came from ${asker.credentialSource}`,
    403: `the audience "${asker.audience}" is missing or not this service's (403 Forbidden); set target.audience to the service's base URL`,
    400: 'the token request was malformed (400 Bad Request)',
  };
  const what =
    meaning[status] ??
    (status === 200 ? 'the token response had no access_token (200)' : `the token call failed with status ${status}`);
  return `cannot authenticate: ${what}.${server}`;
}

/** RFC 6749 §5.2: `error` and `error_description` hold only %x20-21 / %x23-5B / %x5D-7E (no `"`, no `\`). */
const OAUTH_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,500}$/;

/**
 * The token endpoint's own words (`error`, `error_description`), where they enter loadproof: quoted only
 * when they are what RFC 6749 allows (a gateway that echoes the request body — JSON, with quotes — is not),
 * and masked for the client secret in every encoding (src/core/redact.ts); otherwise said to be withheld.
 * Masked here, once, before any layer escapes the text again (run.json, summary.json, junit.xml…).
 */
function serverWords(body: Record<string, unknown> | undefined, clientSecret: string): string {
  if (body?.error === undefined) return '';
  const quoted = (value: unknown): string | undefined =>
    typeof value === 'string' && OAUTH_TEXT.test(value) ? redact(value, [clientSecret]) : undefined;
  const error = quoted(body.error) ?? '(an error code not shown: not a plain RFC 6749 code)';
  const description =
    body.error_description === undefined
      ? ''
      : ` — ${quoted(body.error_description) ?? '(its description is not shown: it is not plain RFC 6749 text, and may echo the request)'}`;
  return ` The server said: ${error}${description}.`;
}
