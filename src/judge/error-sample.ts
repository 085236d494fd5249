/**
 * What events.ndjson keeps of a failed request, for the "top errors" table: its error code, the key of its group
 * (status, outcome, code and the message with its numbers and ids normalised away), and, on the first line of each
 * group only, one sample: the start of what the service said (or the client's error), decoded (JSON escapes,
 * entities, percent-encoding) with zero-width characters dropped, secrets masked on that decoded form, controls made
 * spaces. Samples are bounded in size and in number, so a million errors keep at most
 * MAX_SAMPLED_GROUPS samples, never a million bodies; the report rebuilds the table from the lines alone.
 */
import { createHash } from 'node:crypto';

import { canonicalText, type CountedOutcome } from '../core/index.js';
import { ERROR_CODE_PATTERN } from '../spec/index.js';

/** What a failed attempt said, as the client gives it (unmasked, bounded). */
interface FailureText {
  readonly code?: string;
  readonly text: string;
  /** The text is the start of a longer one: it may end inside a secret. */
  readonly cut?: true;
}

/** The run's secret mask (a SecretMask): what it masks text with, and the length of the longest form it masks. */
interface TextMask {
  redact(text: string): string;
  /** Masks pieces of a secret too (half of one): for canonical text. */
  redactPieces(text: string): string;
  readonly longestForm: number;
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
/** The most of a text scanned for credentials (a body may be megabytes). */
const MAX_SCANNED_CHARS = 8192;
/**
 * The most of a text shown and grouped by, cut once it is masked: room for what neutralising squeezes (controls, runs
 * of spaces), and nothing from past it is ever squeezed into view.
 */
const WINDOW_CHARS = 1024;
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
export const neutralise = (text: string): string => shortened(cleaned(text));

/**
 * `text` with token-like credentials masked, then cut to WINDOW_CHARS, then invisible characters and runs of them made
 * one space: masked before the cut, so a credential is whole when it is matched; squeezed after, so nothing from past
 * the cut comes into view.
 */
function cleaned(text: string): string {
  let out = text.slice(0, MAX_SCANNED_CHARS);
  for (const [pattern, replacement] of TOKEN_LIKE) out = out.replace(pattern, replacement);
  // A lone surrogate (a body cut mid-character, or hostile) is no character: U+FFFD, as a well-formed string has.
  return out
    .slice(0, WINDOW_CHARS)
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
    .replace(INVISIBLE, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** At most SAMPLE_CHARS characters, an ellipsis saying when there was more. */
function shortened(text: string): string {
  const chars = Array.from(text);
  return chars.length <= SAMPLE_CHARS ? text : `${chars.slice(0, SAMPLE_CHARS - 1).join('')}…`;
}

/**
 * The message with what differs between requests of one error made '#', to group by: ids, and every word holding a
 * digit (a count, a request id, each piece of a timestamp: `2026-11-27T20:01:10Z` is `#-#-#:#:#`).
 */
const normalised = (text: string): string =>
  text
    .replace(/[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}/gi, '#')
    .replace(/[\p{L}\p{N}_]*\p{N}[\p{L}\p{N}_]*/gu, '#');

/**
 * How many characters `masked` (the mask's output for `raw`) ends with that are `raw`'s own last ones, at most
 * `most`: the end no mask touched. A secret cut at the end of `raw` left its start there, unmasked.
 */
function untouchedEnd(raw: string, masked: string, most: number): number {
  let n = 0;
  while (n < most && n < masked.length && masked[masked.length - 1 - n] === raw[raw.length - 1 - n]) n++;
  return n;
}

/** Makes each failed request's ErrorRecord; a sample on the first of each group, up to MAX_SAMPLED_GROUPS. */
export class ErrorSampler {
  private readonly sampled = new Set<string>();

  /** `mask`: the run's secret mask (client secret, access tokens), applied before anything else. */
  constructor(private readonly mask: TextMask) {}

  recordOf(
    outcome: CountedOutcome,
    status: number | undefined,
    failure: FailureText | undefined,
  ): ErrorRecord | undefined {
    if (!isErrorOutcome(outcome) || failure === undefined) return undefined;
    // A code is a short token, and a secret or an access token may be one: a masked code is none.
    const given = failure.code;
    const code =
      given !== undefined && ERROR_CODE_PATTERN.test(given) && this.mask.redactPieces(given) === given ? given : null;
    // Masked before it is cut (a secret is whole), and again after (neutralising may have made a form it knows).
    const said = this.mask.redactPieces(cleaned(this.masked(failure)));
    const sample = shortened(said);
    const key = createHash('sha1')
      .update(`${status ?? ''}|${outcome}|${code ?? ''}|${normalised(said)}`)
      .digest('hex')
      .slice(0, 12);
    const group = `${status ?? ''}|${outcome}|${code ?? ''}|${key}`;
    if (this.sampled.has(group) || this.sampled.size >= MAX_SAMPLED_GROUPS) return { code, key };
    this.sampled.add(group);
    return { code, key, sample };
  }

  /**
   * The text made canonical (decoded, invisible characters dropped: a secret echoed split or encoded reads whole) and
   * masked there, pieces of secrets too; only that form is ever shown. A text cut short may end with the start of a
   * secret, which no mask matches: its end that masking left as it was, up to the longest form masked less one
   * character, is dropped.
   */
  private masked(failure: FailureText): string {
    const text = canonicalText(failure.text.slice(0, MAX_SCANNED_CHARS));
    const masked = this.mask.redactPieces(text);
    if (failure.cut !== true) return masked;
    return masked.slice(0, masked.length - untouchedEnd(text, masked, this.mask.longestForm - 1));
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
