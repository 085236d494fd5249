/**
 * The bytes of an attempt's request, written into one Buffer: the head's constant start encoded once per endpoint,
 * the token once per token, and the body written straight in. A request built as one string was flattened and
 * encoded again on every write: about 1 KB of garbage per attempt on the path that runs thousands of times a second.
 */

/** The request line and the headers every attempt of one endpoint starts with, up to the token. */
export function requestHeadStart(path: string, host: string): Buffer {
  return Buffer.from(
    `POST ${path} HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\naccept: application/json\r\nauthorization: Bearer `,
  );
}

/** Builds the attempts' requests of one endpoint; holds the last token's bytes. */
export class RequestBytes {
  private token = '';
  private tokenBytes: Buffer = Buffer.alloc(0);

  constructor(private readonly start: Buffer) {}

  /**
   * start + token + CRLF + `headers` (ASCII header lines, each ending in CRLF, and the blank line) + `body` (a string
   * or its UTF-8 bytes), whose UTF-8 length is `bodyBytes`. The same bytes as the string
   * `${start}${token}\r\n${headers}${body}` encoded as UTF-8.
   */
  build(token: string, headers: string, body: string | Uint8Array, bodyBytes: number): Buffer {
    if (token !== this.token) {
      this.token = token;
      this.tokenBytes = Buffer.from(`${token}\r\n`);
    }
    const size = this.start.length + this.tokenBytes.length + headers.length + bodyBytes;
    // Room for one more character (4 bytes in UTF-8 at most): a body longer than it was said to be shows.
    const out = Buffer.allocUnsafe(size + 4);
    let at = this.start.copy(out, 0);
    at += this.tokenBytes.copy(out, at);
    at += out.write(headers, at, 'latin1');
    if (typeof body !== 'string') {
      // Bytes made once per request (textBodyBytes): copied, their length is theirs.
      if (body.length === bodyBytes) {
        out.set(body, at);
        return out.subarray(0, size);
      }
      return Buffer.concat([out.subarray(0, at), body]);
    }
    const written = out.write(body, at, 'utf8');
    if (written === bodyBytes) return out.subarray(0, size);
    // A body whose length was misstated: all of it, as the request's string would have been sent.
    return Buffer.concat([out.subarray(0, at), Buffer.from(body)]);
  }
}
