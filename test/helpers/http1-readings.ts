/**
 * One answer's bytes as our parser reads them and as llhttp (Node's parser) reads them, in one shape to compare:
 * accepted or not, the status, the headers our client reads, the body, where the answer ends (for a kept-alive
 * connection: what is left over) and whether the connection may carry another request.
 */
import { ResponseParser } from '../../src/client/http1/index.js';
import type { LlhttpReference, ReferenceReading } from './llhttp-reference.js';

/** The headers our client reads. */
const READ_HEADERS = ['content-length', 'keep-alive', 'retry-after', 'location', 'connection', 'content-type'];

export interface Reading {
  /** An answer; or refused as ill-formed (or too large); or cut short by the close. */
  readonly outcome: 'answer' | 'refused' | 'cut short';
  readonly status?: number;
  readonly headers?: Record<string, string>;
  /** The body, latin1 (one character a byte). */
  readonly body?: string;
  /** Where the answer ends: the offset of its last byte + 1 (bytes after it are left over), or at the close. */
  readonly endsAt?: number | 'close' | undefined;
  /** The connection may carry another request (as the answer's head says: leftover bytes aside). */
  readonly keepAlive?: boolean;
}

function readHeaders(all: Readonly<Record<string, string>>): Record<string, string> {
  const read: Record<string, string> = {};
  for (const name of READ_HEADERS) if (all[name] !== undefined) read[name] = all[name];
  return read;
}

function refusal(error: unknown): Reading {
  const code = (error as { code?: string }).code;
  return { outcome: code === 'ECONNRESET' ? 'cut short' : 'refused' };
}

/** Our parser's answer to `bytes` pushed whole, then the close (if it needs it): with `close`, whether it did. */
function parseOurs(bytes: Buffer, close: boolean): ReturnType<ResponseParser['push']> {
  const parser = new ResponseParser();
  return parser.push(bytes) ?? (close ? parser.end() : undefined);
}

/**
 * Our parser, fed the bytes whole, then the close. Where the answer ends is the fewest bytes from which it reads it
 * before any close (reading more never unmakes a whole answer); the connection is kept as that answer's head says.
 */
export function readWithOurs(bytes: Buffer): Reading {
  try {
    const r = parseOurs(bytes, true);
    if (r === undefined) return { outcome: 'cut short' };
    let endsAt: number | 'close' = 'close';
    let close = r.close;
    if (parseOurs(bytes, false) !== undefined) {
      let low = 0; // no answer from `low` bytes
      let high = bytes.length; // an answer from `high` bytes
      while (high - low > 1) {
        const mid = (low + high) >> 1;
        if (parseOurs(bytes.subarray(0, mid), false) === undefined) low = mid;
        else high = mid;
      }
      endsAt = high;
      close = parseOurs(bytes.subarray(0, high), false)!.close;
    }
    return {
      outcome: 'answer',
      status: r.status,
      headers: readHeaders(r.headers),
      body: r.body.toString('latin1'),
      endsAt,
      keepAlive: !close,
    };
  } catch (error) {
    return refusal(error);
  }
}

const framedAt = (r: ReferenceReading): boolean => r.accepted && r.wholeBeforeClose;

/**
 * Where llhttp ends the answer: it reads it whole from the first `end` bytes before the close, and not from one byte
 * fewer (reading more bytes never unmakes a whole answer). `guess` (ours) is checked first; only a miss is searched.
 */
async function llhttpEnd(reference: LlhttpReference, bytes: Buffer, guess: number | undefined): Promise<number> {
  if (guess !== undefined && guess <= bytes.length) {
    const upTo = guess === bytes.length || framedAt(await reference.read(bytes.subarray(0, guess)));
    if (upTo && !framedAt(await reference.read(bytes.subarray(0, guess - 1)))) return guess;
  }
  let low = 0; // not whole from `low` bytes
  let high = bytes.length; // whole from `high` bytes
  while (high - low > 1) {
    const mid = (low + high) >> 1;
    if (framedAt(await reference.read(bytes.subarray(0, mid)))) high = mid;
    else low = mid;
  }
  return high;
}

/** llhttp's reading, through node:http over loopback; `ours` tells where to look for the answer's end first. */
export async function readWithLlhttp(reference: LlhttpReference, bytes: Buffer, ours: Reading): Promise<Reading> {
  const r = await reference.read(bytes);
  if (!r.accepted) return { outcome: r.error === 'ECONNRESET' ? 'cut short' : 'refused' };
  const guess = typeof ours.endsAt === 'number' ? ours.endsAt : undefined;
  return {
    outcome: 'answer',
    status: r.status!,
    headers: readHeaders(r.headers),
    body: r.body.toString('latin1'),
    // Where ours read no answer, the outcomes differ already: no search for where llhttp's ends.
    endsAt: !r.wholeBeforeClose
      ? 'close'
      : ours.outcome === 'answer'
        ? await llhttpEnd(reference, bytes, guess)
        : undefined,
    keepAlive: r.keepAlive,
  };
}

/** What differs between two readings (an empty list: the same). */
export function differences(ours: Reading, llhttp: Reading): string[] {
  const fields = ['outcome', 'status', 'headers', 'body', 'endsAt', 'keepAlive'] as const;
  return fields
    .filter((f) => JSON.stringify(ours[f]) !== JSON.stringify(llhttp[f]))
    .map((f) => `${f}: ours ${JSON.stringify(ours[f])}, llhttp ${JSON.stringify(llhttp[f])}`);
}
