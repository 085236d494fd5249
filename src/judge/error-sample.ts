/**
 * What events.ndjson keeps of a failed request, for the "top errors" table: its error code, the key of its group
 * (status, outcome, code and the message with its numbers and ids normalised away), and, on the first line of each
 * group only, one sample: the start of what the service said (or the client's error), secrets masked, controls and
 * invisible characters made spaces. Samples are bounded in size and in number, so a million errors keep at most
 * MAX_SAMPLED_GROUPS samples, never a million bodies; the report rebuilds the table from the lines alone.
 */
import { createHash } from 'node:crypto';

import type { CountedOutcome } from '../core/index.js';
import { ERROR_CODE_PATTERN } from '../spec/index.js';

/** What a failed attempt said, as the client gives it (unmasked, bounded). */
interface FailureText {
  readonly code?: string;
  readonly text: string;
}

/** A failed request's error on its line of events.ndjson. */
export interface ErrorRecord {
  /** The answer's error code or the client's (ECONNRESET, …); null when none was a short token. */
  readonly code: string | null;
  /** Its group's key: a hash of status, outcome, code and the normalised message. */
  readonly key: string;
  /** The first line of its group only: what was said, masked and neutralised, at most SAMPLE_CHARS characters. */
  readonly sample?: string;
}

/** The most characters of a sample. */
export const SAMPLE_CHARS = 200;
/** The most groups that get a sample in one run (a server that puts a fresh id in every message makes many). */
export const MAX_SAMPLED_GROUPS = 200;
/** The most of a text looked at: what is shown, and room for what neutralising removes (controls, runs of spaces). */
const MAX_SCANNED_CHARS = 8192;
const KEY_PATTERN = /^[0-9a-f]{12}$/;

/**
 * Requests that were sent and failed, as the phase table counts them (its 504s and errors): every outcome but a 2xx, a
 * 429 (judged by its own check) and a stale connection (the client's, not an error).
 */
export const isErrorOutcome = (outcome: CountedOutcome): boolean =>
  !['ok', 'http_429', 'stale_connection', 'dropped', 'unsent'].includes(outcome);

// Controls, C1, zero-width, line/paragraph separators, bidi overrides and the BOM: shown as a space.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]/g;
/** Credentials a server may quote in forms the secret mask does not know: any bearer or basic token, a JWT, a field. */
const TOKEN_LIKE: readonly [RegExp, string][] = [
  // A quoted request header, whole: its name too, so no text reads as an Authorization header.
  [/\b(?:proxy-)?authorization\s*:\s*(?:(?:bearer|basic|token)\s+)?[^\s"',;}]*/gi, '[redacted header]'],
  // What the secret mask already replaced is part of it: `Basic [redacted]g==` is one credential.
  [/\b(bearer|basic|token)(\s+|%20|\+)[A-Za-z0-9\-._~+/%[\]]{8,}=*/gi, '$1 [redacted]'],
  [/\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, '[redacted]'],
  [
    /((?:access_token|refresh_token|id_token|client_secret|password|authorization)\\*"?\s*[:=]\s*\\*"?)[^"\\&\s,;}]{8,}/gi,
    '$1[redacted]',
  ],
];

/** `text` made safe to show: token-like credentials masked, invisible characters spaces, at most SAMPLE_CHARS. */
export function neutralise(text: string): string {
  // A lone surrogate (a body cut mid-character, or hostile) is no character: U+FFFD, as a well-formed string has.
  // Only the start is shown: the rest is never scanned (a body may be megabytes).
  let out = text
    .slice(0, MAX_SCANNED_CHARS)
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
  for (const [pattern, replacement] of TOKEN_LIKE) out = out.replace(pattern, replacement);
  out = out.replace(INVISIBLE, ' ').replace(/\s+/g, ' ').trim();
  const chars = Array.from(out);
  return chars.length <= SAMPLE_CHARS ? out : `${chars.slice(0, SAMPLE_CHARS - 1).join('')}…`;
}

/** The message with what differs between requests of one error (numbers, ids) made '#', to group by. */
const normalised = (sample: string): string =>
  sample.replace(/[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}/gi, '#').replace(/\b[0-9a-f]*[0-9][0-9a-f]*\b/gi, '#');

/** Makes each failed request's ErrorRecord; a sample on the first of each group, up to MAX_SAMPLED_GROUPS. */
export class ErrorSampler {
  private readonly sampled = new Set<string>();

  /** `mask`: the run's secret mask (client secret, access tokens), applied before anything else. */
  constructor(private readonly mask: (text: string) => string) {}

  recordOf(
    outcome: CountedOutcome,
    status: number | undefined,
    failure: FailureText | undefined,
  ): ErrorRecord | undefined {
    if (!isErrorOutcome(outcome) || failure === undefined) return undefined;
    const code = failure.code !== undefined && ERROR_CODE_PATTERN.test(failure.code) ? failure.code : null;
    // Masked before it is cut (a secret is whole), and again after (neutralising may have made a form it knows).
    const sample = this.mask(neutralise(this.mask(failure.text)));
    const key = createHash('sha1')
      .update(`${status ?? ''}|${outcome}|${code ?? ''}|${normalised(sample)}`)
      .digest('hex')
      .slice(0, 12);
    const group = `${status ?? ''}|${outcome}|${code ?? ''}|${key}`;
    if (this.sampled.has(group) || this.sampled.size >= MAX_SAMPLED_GROUPS) return { code, key };
    this.sampled.add(group);
    return { code, key, sample };
  }
}

/** Why a line's `error` is not an ErrorRecord, or undefined when it is one (or absent). */
export function errorRecordProblem(error: unknown): string | undefined {
  if (error === undefined) return undefined;
  const e = error as Partial<Record<keyof ErrorRecord, unknown>> | null;
  const ok =
    typeof e === 'object' &&
    e !== null &&
    (e.code === null || (typeof e.code === 'string' && ERROR_CODE_PATTERN.test(e.code))) &&
    typeof e.key === 'string' &&
    KEY_PATTERN.test(e.key) &&
    (e.sample === undefined || (typeof e.sample === 'string' && e.sample.length <= 2 * SAMPLE_CHARS));
  return ok
    ? undefined
    : `error: expected {code (a token or null), key (12 hex digits), sample? (at most ${SAMPLE_CHARS} characters)}`;
}
