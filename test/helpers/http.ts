/** Test helpers: talk to a mock server over real HTTP (undici), on loopback only. */
import { request } from 'undici';

import type { MockServer } from '../../src/mock/index.js';
import { API_PATHS } from '../../src/spec/index.js';

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  readonly json: any;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export async function call(
  url: string,
  init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  if (!/^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)[:/]/.test(url))
    throw new Error(`tests only talk to loopback, not ${url}`);
  const res = await request(url, {
    method: init.method ?? 'GET',
    headers: init.headers ?? {},
    body: init.body ?? null,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, json: parse(text) };
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return call(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export function tokenRequest(server: MockServer, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client_id: server.clientId,
    client_secret: server.clientSecret,
    audience: server.audience,
    grant_type: 'client_credentials',
    ...overrides,
  };
}

export async function getToken(server: MockServer): Promise<string> {
  const reply = await postJson(server.url + API_PATHS.token, tokenRequest(server));
  if (reply.status !== 200) throw new Error(`token: ${reply.status} ${reply.text}`);
  return reply.json.access_token as string;
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
