/**
 * The load's own HTTP/1.1 connections over TLS (src/client/http1): a certificate they do not accept fails the
 * request with what the server showed (its dates, its names) so that the failure can name the problem, a private
 * CA given the way a run gives it (trustOptions) is trusted beside Node's own CAs, and a server that speaks only
 * HTTP/2 is named. Real servers on 127.0.0.1 with certificates openssl made for this file.
 */
import { readFileSync } from 'node:fs';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { ConnectionPool, type Http1Response } from '../../src/client/http1/index.js';
import { tlsFailure, trustOptions } from '../../src/client/index.js';
import { type MockServer, startMockServer } from '../../src/mock/index.js';
import { LOOPBACK_PERMIT } from '../helpers/permit.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/test-certificates.js';
import { startHttp2Only, startTlsFront, type TlsFront } from '../helpers/tls-front.js';

let certs: TestCertificates;
let mock: MockServer;
let front: TlsFront | undefined;
let pool: ConnectionPool | undefined;
beforeAll(async () => {
  certs = makeTestCertificates();
  mock = await startMockServer({ timeScale: 1 });
});
afterAll(async () => mock?.close());
afterEach(async () => {
  pool?.close();
  pool = undefined;
  await front?.close();
  front = undefined;
});

/** One GET of the mock's stats through `pool`: the answer, or the error. */
function get(p: ConnectionPool, host: string): Promise<{ error?: Error; response?: Http1Response }> {
  return new Promise((resolve) =>
    p.request(
      `GET /__mock/stats HTTP/1.1\r\nhost: ${host}\r\n\r\n`,
      20_000,
      () => {},
      (error, response) =>
        resolve({ ...(error === undefined ? {} : { error }), ...(response === undefined ? {} : { response }) }),
    ),
  );
}

describe('the load pool over TLS', () => {
  it('trusts a private CA given as a run gives it, and refuses the same server without it', async () => {
    front = await startTlsFront(mock.url, certs.leaf('good'));
    const host = new URL(front.url).host;
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, front.url, 1);
    const refused = await get(pool, host);
    expect(tlsFailure(front.url, refused.error)?.code).toBe('TLS_CERTIFICATE');
    expect(tlsFailure(front.url, refused.error)?.message).toContain('its issuer ("loadproof test CA") is not a CA');
    pool.close();
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, front.url, 1, {
      tls: trustOptions(readFileSync(certs.caFile, 'utf8')),
    });
    const answered = await get(pool, host);
    expect(answered.error).toBeUndefined();
    expect(answered.response?.status).toBe(200);
  });

  it('an expired certificate: the failure says when it expired', async () => {
    front = await startTlsFront(mock.url, certs.leaf('expired'));
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, front.url, 1, {
      tls: trustOptions(readFileSync(certs.caFile, 'utf8')),
    });
    const { error } = await get(pool, new URL(front.url).host);
    expect(tlsFailure(front.url, error)?.message).toContain('expired on Jan  2 00:00:00 2020 GMT (CERT_HAS_EXPIRED)');
  });

  it('an HTTP/2-only server: HTTP_PROTOCOL, named', async () => {
    front = await startHttp2Only(certs.leaf('good'));
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, front.url, 1, {
      tls: trustOptions(readFileSync(certs.caFile, 'utf8')),
    });
    const { error } = await get(pool, new URL(front.url).host);
    const failure = tlsFailure(front.url, error);
    expect(failure?.code).toBe('HTTP_PROTOCOL');
    expect(failure?.message).toContain("speaks only HTTP/2 (ALPN h2); loadproof's client speaks HTTP/1.1");
  });
});
