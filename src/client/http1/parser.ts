/**
 * An incremental HTTP/1.1 response parser for one connection, one response at a time (we never
 * pipeline): the status line, the headers, then a body framed by Content-Length, by chunked
 * transfer coding, or by the connection's close. Bytes may arrive split anywhere. It keeps every
 * header (lower-case names), so the caller reads Retry-After, Server-Timing or anything else.
 * What is not HTTP/1.x, or a head larger than the limit, is an {@link HttpParseError}, never a hang.
 */

import {
  AnswerTooLargeError,
  DEFAULT_MAX_HEAD_BYTES,
  type Http1Response,
  HttpParseError,
  MAX_ANSWER_BYTES,
  PrematureCloseError,
} from './response.js';

/** The longest chunk-size or trailer line accepted, bytes. */
const MAX_LINE_BYTES = 8 * 1024;

const enum State {
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkEnd,
  Trailers,
  UntilClose,
}

const CRLFCRLF = Buffer.from('\r\n\r\n');
/** Where the line that starts at `from` ends (its CRLF, or the end of the text). */
function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\r\n', from);
  return end < 0 ? text.length : end;
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
/** The characters String.prototype.trim removes that a latin1 header can hold: tab to CR, space, no-break space. */
const isTrimmed = (c: number): boolean => (c >= 9 && c <= 13) || c === 32 || c === 160;

/** A valid Content-Length value. */
const DIGITS = /^\d{1,15}$/;

export class ResponseParser {
  private state = State.Head;
  private head: Buffer | undefined;
  private status = 0;
  private headers: Record<string, string> = {};
  private close = false;
  private keepAliveMs: number | undefined;
  private remaining = 0;
  private parts: Buffer[] = [];
  private line = '';
  /** A response has begun (some byte of it was read). */
  private started = false;
  /** Body bytes (and trailer bytes) of this response so far, held against maxBodyBytes. */
  private bodyBytes = 0;

  constructor(
    private readonly maxHeadBytes = DEFAULT_MAX_HEAD_BYTES,
    private readonly maxBodyBytes = MAX_ANSWER_BYTES,
  ) {}

  /** Counts `n` more body bytes; throws once the body would pass the cap (before they are kept). */
  private grow(n: number): void {
    this.bodyBytes += n;
    if (this.bodyBytes > this.maxBodyBytes) throw new AnswerTooLargeError(this.maxBodyBytes);
  }

  /**
   * Feeds the next bytes; returns the response once it is whole (bytes after it mark it `close`). Throws
   * HttpParseError. The bytes may be reused by the caller as soon as this returns: what is kept is copied.
   */
  push(chunk: Buffer): Http1Response | undefined {
    let at = 0;
    if (chunk.length > 0) this.started = true;
    while (at < chunk.length) {
      at = this.read(chunk, at);
      // A response is whole when we are back at Head with a status read (1xx heads are skipped).
      if (this.state === State.Head && this.status !== 0) return this.finish(at < chunk.length);
    }
    return undefined;
  }

  /** Reads what the current state expects from `chunk` at `at`; where it stopped. */
  private read(chunk: Buffer, at: number): number {
    switch (this.state) {
      case State.Head:
        return this.readHeadBytes(chunk, at);
      case State.Length:
        return this.readLengthBody(chunk, at);
      case State.ChunkSize:
      case State.Trailers:
        return this.readLine(chunk, at);
      case State.ChunkData:
        return this.readChunkData(chunk, at);
      case State.ChunkEnd:
        return this.readChunkEnd(chunk, at);
      case State.UntilClose:
        this.grow(chunk.length - at);
        this.parts.push(Buffer.from(chunk.subarray(at)));
        return chunk.length;
    }
  }

  /** The status line and headers, up to their blank line (kept across chunks until it comes). */
  private readHeadBytes(chunk: Buffer, at: number): number {
    const before = this.head?.length ?? 0;
    const buf = this.head === undefined ? chunk.subarray(at) : Buffer.concat([this.head, chunk.subarray(at)]);
    const end = buf.indexOf(CRLFCRLF, Math.max(0, before - 3));
    if (end < 0) {
      if (buf.length > this.maxHeadBytes)
        throw new HttpParseError(
          'HPE_HEADER_OVERFLOW',
          `the response's status line and headers exceed ${this.maxHeadBytes} bytes`,
        );
      this.head = Buffer.from(buf); // a copy: the socket's chunk is not ours to keep
      return chunk.length;
    }
    if (end > this.maxHeadBytes)
      throw new HttpParseError(
        'HPE_HEADER_OVERFLOW',
        `the response's status line and headers exceed ${this.maxHeadBytes} bytes`,
      );
    this.head = undefined;
    this.readHead(buf.toString('latin1', 0, end));
    return at + end + 4 - before;
  }

  /** A body framed by Content-Length. */
  private readLengthBody(chunk: Buffer, at: number): number {
    const n = Math.min(this.remaining, chunk.length - at);
    this.grow(n);
    this.parts.push(Buffer.from(chunk.subarray(at, at + n)));
    this.remaining -= n;
    if (this.remaining === 0) this.state = State.Head; // whole: see push
    return at + n;
  }

  /** A chunk-size line or a trailer line, kept across chunks until its LF comes. */
  private readLine(chunk: Buffer, at: number): number {
    const nl = chunk.indexOf(10, at);
    const piece = chunk.toString('latin1', at, nl < 0 ? chunk.length : nl + 1);
    const next = nl < 0 ? chunk.length : nl + 1;
    // Trailer lines are not kept, but a stream of them is a body without end.
    if (this.state === State.Trailers) this.grow(piece.length);
    this.line += piece;
    if (this.line.length > MAX_LINE_BYTES)
      throw new HttpParseError('HPE_INVALID_CHUNK_SIZE', 'a chunk-size or trailer line is too long');
    if (nl < 0) return next;
    const line = this.line.endsWith('\r\n') ? this.line.slice(0, -2) : this.line.slice(0, -1);
    this.line = '';
    if (this.state === State.Trailers) {
      if (line === '') this.state = State.Head; // whole
      return next;
    }
    this.readChunkSize(line);
    return next;
  }

  /** A chunk-size line: the size of the chunk that follows (0: the trailers). */
  private readChunkSize(line: string): void {
    const size = /^[0-9a-fA-F]{1,8}(?=[\t ;]|$)/.exec(line);
    if (size === null) throw new HttpParseError('HPE_INVALID_CHUNK_SIZE', 'a chunk size is not hexadecimal');
    this.remaining = Number.parseInt(size[0], 16);
    // A chunk announced past the cap is refused before any of it is read.
    if (this.bodyBytes + this.remaining > this.maxBodyBytes) throw new AnswerTooLargeError(this.maxBodyBytes);
    this.state = this.remaining === 0 ? State.Trailers : State.ChunkData;
  }

  /** A chunk's data. */
  private readChunkData(chunk: Buffer, at: number): number {
    const n = Math.min(this.remaining, chunk.length - at);
    this.grow(n);
    this.parts.push(Buffer.from(chunk.subarray(at, at + n)));
    this.remaining -= n;
    if (this.remaining === 0) {
      this.state = State.ChunkEnd;
      this.remaining = 2;
    }
    return at + n;
  }

  /** The CRLF after a chunk's data (a bare LF is tolerated, as llhttp's lenient mode does). */
  private readChunkEnd(chunk: Buffer, at: number): number {
    const byte = chunk[at]!;
    if (this.remaining === 2 && byte === 13) this.remaining = 1;
    else if (byte === 10) this.state = State.ChunkSize;
    else throw new HttpParseError('HPE_INVALID_CHUNK_SIZE', 'a chunk is not followed by CRLF');
    return at + 1;
  }

  /**
   * The connection ended. Returns the response a close ends (a body without length), undefined when
   * no response had begun, and throws PrematureCloseError when one was cut short.
   */
  end(): Http1Response | undefined {
    if (this.state === State.UntilClose) return this.finish(true);
    if (!this.started) return undefined;
    throw new PrematureCloseError();
  }

  private readHead(text: string): void {
    // By hand, not split and regular expressions: this runs once per answer, and a split head cost about
    // 2 KB of garbage per request. The same rules: lines end in CRLF; the status line is
    // "HTTP/1.0 " or "HTTP/1.1 ", three digits, then a space or its end; a header line is a name, a colon
    // and a value, which is trimmed as String.prototype.trim does.
    const statusEnd = lineEnd(text, 0);
    const minor = text.charCodeAt(7);
    const afterStatus = text.charCodeAt(12);
    if (
      !text.startsWith('HTTP/1.') ||
      (minor !== 48 && minor !== 49) ||
      text.charCodeAt(8) !== 32 ||
      statusEnd < 12 ||
      !isDigit(text.charCodeAt(9)) ||
      !isDigit(text.charCodeAt(10)) ||
      !isDigit(text.charCodeAt(11)) ||
      (statusEnd > 12 && afterStatus !== 32)
    )
      throw new HttpParseError('HPE_INVALID_STATUS', 'the response does not start with an HTTP/1.x status line');
    const status = (text.charCodeAt(9) - 48) * 100 + (text.charCodeAt(10) - 48) * 10 + (text.charCodeAt(11) - 48);
    // No prototype: a header named `constructor` or `__proto__` is a header, not a member of Object.prototype.
    const headers: Record<string, string> = Object.create(null) as Record<string, string>;
    // The head ends before its blank line, so every line after the status line is a header line.
    for (let at = statusEnd + 2; statusEnd < text.length && at <= text.length;) {
      const end = lineEnd(text, at);
      const colon = text.indexOf(':', at);
      if (colon <= at || colon >= end)
        throw new HttpParseError('HPE_INVALID_HEADER', 'a response header line has no name');
      const name = text.slice(at, colon).toLowerCase();
      let from = colon + 1;
      let to = end;
      while (from < to && isTrimmed(text.charCodeAt(from))) from++;
      while (to > from && isTrimmed(text.charCodeAt(to - 1))) to--;
      const value = text.slice(from, to);
      const before = headers[name];
      headers[name] = before === undefined ? value : `${before}, ${value}`;
      at = end + 2;
    }
    // 1xx: an interim answer; the real one follows. Their heads count against the answer's cap: a stream of them is an
    // answer without end.
    if (status < 200) return this.grow(text.length + 4);
    this.status = status;
    this.headers = headers;
    const connection = headers['connection']?.toLowerCase() ?? '';
    this.close = connection.includes('close') || (minor === 48 && !connection.includes('keep-alive'));
    // Headers most answers lack are only searched when present (this runs once per answer).
    const keepAlive = headers['keep-alive'];
    const timeout = keepAlive === undefined ? null : /timeout=(\d+)/i.exec(keepAlive);
    this.keepAliveMs = timeout === null ? undefined : Number(timeout[1]) * 1000;
    if (status === 204 || status === 304) return; // no body: whole already
    const coding = headers['transfer-encoding'];
    if (coding !== undefined && /(?:^|,)\s*chunked\s*$/i.test(coding)) {
      this.state = State.ChunkSize;
      return;
    }
    const length = headers['content-length'];
    if (length !== undefined) {
      // One value, as nearly every answer has; repeated equal values (a list) are one too.
      const values = DIGITS.test(length) ? [length] : [...new Set(length.split(',').map((v) => v.trim()))];
      const only = values.length === 1 ? values[0]! : '';
      if (!DIGITS.test(only))
        throw new HttpParseError('HPE_INVALID_CONTENT_LENGTH', 'the response has an invalid Content-Length');
      this.remaining = Number(only);
      // Announced past the cap: refused at once, nothing of it read or waited for.
      if (this.remaining > this.maxBodyBytes) throw new AnswerTooLargeError(this.maxBodyBytes);
      if (this.remaining > 0) this.state = State.Length;
      return;
    }
    this.close = true;
    this.state = State.UntilClose;
  }

  private finish(close: boolean): Http1Response {
    const parts = this.parts;
    const body = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    const response: {
      status: number;
      headers: Record<string, string>;
      body: Buffer;
      close: boolean;
      keepAliveMs?: number;
    } = { status: this.status, headers: this.headers, body, close: this.close || close };
    if (this.keepAliveMs !== undefined) response.keepAliveMs = this.keepAliveMs;
    this.state = State.Head;
    this.status = 0;
    this.headers = {};
    this.close = false;
    this.keepAliveMs = undefined;
    this.parts = [];
    this.started = false;
    this.bodyBytes = 0;
    return response;
  }
}
