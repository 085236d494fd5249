/**
 * A hostile stand-in for the API on loopback that echoes what it is sent, as some gateways do: the
 * token endpoint quotes the request body (JSON, form-encoded, and the Basic header it would make) in
 * its error body; the API quotes the Authorization header in error bodies, in a 429's error code and
 * in its 2xx answers. For the leak scan (test/cli/secrets.test.ts). Nothing listens beyond 127.0.0.1.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { API_PATHS } from '../../src/spec/index.js';

/** Every access token the echo server issues starts with this (base64url after it: it matches an error-code token). */
export const ECHO_TOKEN_PREFIX = 'echoAt_';

export interface EchoServer {
  readonly url: string;
  /** Token calls; api: every other request (loadproof's look for /__mock/stats too); identification requests. */
  readonly counts: { token: number; api: number; identification: number };
  /** Every access token issued, in order. */
  readonly issued: string[];
  close(): Promise<void>;
}

/**
 * `secret`: the client secret it accepts (any other gets 401 with the request echoed); `refuseAll`:
 * every token call gets that 401, whatever the secret; `answerAll`: identification always answers 200
 * (for a de-identification to reach its obfuscation, whose text then carries the header).
 */
export async function startEchoServer(options: {
  readonly secret: string;
  readonly refuseAll?: boolean;
  readonly answerAll?: boolean;
}): Promise<EchoServer> {
  const counts = { token: 0, api: 0, identification: 0 };
  const issued: string[] = [];
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const handle = (req: IncomingMessage, res: ServerResponse, raw: string): void => {
    const path = (req.url ?? '').split('?')[0];
    const auth = req.headers.authorization ?? '';
    if (path === API_PATHS.token) {
      counts.token++;
      let sent: Record<string, string> = {};
      try {
        sent = JSON.parse(raw) as Record<string, string>;
      } catch {
        // Echoed as it came.
      }
      if (options.refuseAll !== true && sent.client_secret === options.secret) {
        const token = `${ECHO_TOKEN_PREFIX}${counts.token}_${randomBytes(24).toString('base64url')}`;
        issued.push(token);
        json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600 });
        return;
      }
      const basic = `Basic ${Buffer.from(`${sent.client_id}:${sent.client_secret}`).toString('base64')}`;
      const form = new URLSearchParams(sent).toString();
      json(res, 401, {
        error: 'invalid_client',
        // The secret as sent, URL-encoded and in a Basic header: plain RFC 6749 text when the secret is.
        error_description: `client_secret=${sent.client_secret} as ${encodeURIComponent(sent.client_secret ?? '')} ${basic}`,
        echo: `the request was ${raw}`,
        request: raw,
        form,
        authorization: basic,
      });
      return;
    }
    counts.api++;
    if (path === API_PATHS.session) {
      json(res, 200, { session_id: randomUUID(), seen: auth });
      return;
    }
    let text = '';
    try {
      text = String((JSON.parse(raw) as { text?: unknown }).text ?? '');
    } catch {
      // No text.
    }
    if (path === API_PATHS.obfuscation) {
      // The header in the obfuscated text itself: what a de-identification run stores.
      json(res, 200, { text: `${text} (${auth})`, style: 'tag', replacements: [], seen: auth });
      return;
    }
    if (path !== API_PATHS.identification) {
      json(res, 404, { error: 'not_found' });
      return;
    }
    counts.identification++;
    // Identification: in turn an answer, a 400 quoting the header, a 429 whose code is the token, a 500 in plain text.
    const token = auth.replace(/^Bearer\s+/i, '');
    switch (options.answerAll === true ? 0 : counts.identification % 4) {
      case 0:
        json(res, 200, { entities: [], truncated: false, seen: auth });
        return;
      case 1:
        json(res, 400, { error: 'invalid_request', error_description: `Authorization: ${auth}`, headers: req.headers });
        return;
      case 2:
        json(res, 429, { error: token, code: token }, { 'retry-after': '1' });
        return;
      default:
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`internal error; request had ${auth}`);
    }
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    issued,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
