/**
 * TLS against real servers on loopback, with certificates openssl made for this file: a certificate the client
 * does not accept is named as the certificate problem it is (untrusted issuer, self-signed, wrong name, expired,
 * not yet valid) with how to trust a private CA — never "cannot reach … is the server running there?"; a private
 * CA given by --ca, target.tls.ca or NODE_EXTRA_CA_CERTS makes the target trusted; an HTTP/2-only server is
 * refused by name. Nothing in the service's spec is reached when the handshake fails.
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { type MockServer, startMockServer } from '../../src/mock/index.js';
import { runCli, runMain, scenarioWorkspace } from '../helpers/cli.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/test-certificates.js';
import { startHttp2Only, startTlsFront, type TlsFront } from '../helpers/tls-front.js';

let certs: TestCertificates;
let mock: MockServer;
let front: TlsFront | undefined;
beforeAll(async () => {
  certs = makeTestCertificates();
  mock = await startMockServer({ timeScale: 1 });
});
afterAll(async () => {
  await mock?.close();
});
afterEach(async () => {
  await front?.close();
  front = undefined;
});

/** A check scenario for the mock behind `url` (its audience is the mock's own). */
const scenario = (url: string, tls = ''): string =>
  `name: tls\ndescription: tls\ntarget: { environment: mock, baseUrl: "${url}", audience: "${mock.audience}"${tls} }\nphases: [{ name: one, duration: 1m, rpm: 60 }]\n`;

const credentials = (): Record<string, string> => ({
  LOADPROOF_CLIENT_ID: mock.clientId,
  LOADPROOF_CLIENT_SECRET: mock.clientSecret,
});

describe('a certificate the client does not accept: TLS_CERTIFICATE (exit 4), the problem named', () => {
  const cases: [string, Parameters<TestCertificates['leaf']>[0], boolean, RegExp][] = [
    [
      'a private CA nobody told it to trust',
      'good',
      false,
      /its issuer \("loadproof test CA"\) is not a CA this client trusts \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/,
    ],
    [
      'a self-signed certificate',
      'self-signed',
      false,
      /the certificate "localhost" is self-signed, and not one this client trusts \(DEPTH_ZERO_SELF_SIGNED_CERT\)/,
    ],
    [
      'a certificate for another name',
      'wrong-name',
      true,
      /it is not for 127\.0\.0\.1: it covers DNS:other\.example \(ERR_TLS_CERT_ALTNAME_INVALID\)/,
    ],
    [
      'an expired certificate',
      'expired',
      true,
      /the certificate "localhost" expired on Jan {2}2 00:00:00 2020 GMT \(CERT_HAS_EXPIRED\)/,
    ],
    [
      'a certificate not valid yet',
      'future',
      true,
      /the certificate "localhost" is not valid yet \(not before Jan {2}1 00:00:00 2099 GMT\) \(CERT_NOT_YET_VALID\)/,
    ],
  ];
  it.each(cases)('%s', async (_name, leaf, withCa, problem) => {
    front = await startTlsFront(mock.url, certs.leaf(leaf));
    const { file } = scenarioWorkspace(scenario(front.url));
    const before = mock.stats().requests.token.received;
    const { code, stderr } = await runMain(['check', file, ...(withCa ? ['--ca', certs.caFile] : [])], credentials());
    expect(code).toBe(4);
    expect(stderr).toContain(
      `TLS_CERTIFICATE: the server at ${front.url} presented a TLS certificate this client does not accept`,
    );
    expect(stderr).toMatch(problem);
    expect(stderr).not.toContain('is the server running there');
    expect(stderr).not.toMatch(/--insecure|rejectUnauthorized/);
    if (leaf === 'good' || leaf === 'self-signed') {
      expect(stderr).toContain('--ca /path/ca.pem, target.tls.ca in the scenario, or NODE_EXTRA_CA_CERTS=/path/ca.pem');
    }
    expect(mock.stats().requests.token.received).toBe(before);
  });
});

describe('a real environment: the token call names the certificate problem too', () => {
  const announced = new Date(Date.now() - 20 * 86_400_000).toISOString().slice(0, 10);
  const sandbox = (url: string): string =>
    `name: tls\ndescription: tls\ntarget: { environment: sandbox, baseUrl: "${url}", audience: "${mock.audience}" }\nphases: [{ name: one, duration: 2s, rpm: 60 }]\nnotice: { announcedOn: '${announced}', reference: CASE-4242 }\n`;

  it.each([['run'], ['check']])('%s', async (command) => {
    front = await startTlsFront(mock.url, certs.leaf('self-signed'));
    const { file, out } = scenarioWorkspace(sandbox(front.url));
    const before = mock.stats().requests.token.received;
    const args = command === 'run' ? ['run', '--no-charts', file, '--out', out] : ['check', file];
    const { code, stdout, stderr } = await runMain([...args, '--allow-loopback-as-real'], credentials());
    expect(code).toBe(4);
    expect(stdout + stderr).toContain(
      `the server at ${front.url} presented a TLS certificate this client does not accept: the certificate "localhost" is self-signed`,
    );
    expect(stdout + stderr).toContain('TLS_CERTIFICATE');
    expect(stdout + stderr).toContain('To trust a private CA, give its certificate (PEM): --ca /path/ca.pem');
    expect(stdout + stderr).not.toContain('TARGET_UNREACHABLE');
    expect(mock.stats().requests.token.received).toBe(before);
  });
});

describe('a private CA made trusted', () => {
  it('--ca: check passes (exit 0) where it failed without', async () => {
    front = await startTlsFront(mock.url, certs.leaf('good'));
    const { file } = scenarioWorkspace(scenario(front.url));
    const { code, stdout, stderr } = await runMain(['check', file, '--ca', certs.caFile], credentials());
    expect(stderr).not.toContain('TLS_CERTIFICATE');
    expect(stdout).toContain('every endpoint answered as the spec says');
    expect(code).toBe(0);
  });

  it('target.tls.ca, relative to the scenario file: check passes', async () => {
    front = await startTlsFront(mock.url, certs.leaf('good'));
    const { dir, file } = scenarioWorkspace(scenario(front.url, ', tls: { ca: ca-copy.pem }'));
    copyFileSync(certs.caFile, join(dir, 'ca-copy.pem'));
    const { code, stderr } = await runMain(['check', file], credentials());
    expect(stderr).not.toContain('TLS_CERTIFICATE');
    expect(code).toBe(0);
  });

  it('NODE_EXTRA_CA_CERTS still works (a process of its own: Node reads it at start-up)', async () => {
    front = await startTlsFront(mock.url, certs.leaf('good'));
    const { file } = scenarioWorkspace(scenario(front.url));
    const { code, stderr } = await runCli(['check', file], { ...credentials(), NODE_EXTRA_CA_CERTS: certs.caFile });
    expect(stderr).not.toContain('TLS_CERTIFICATE');
    expect(code).toBe(0);
  });

  it("--ca adds to NODE_EXTRA_CA_CERTS, never replaces it (nor Node's own CAs)", async () => {
    front = await startTlsFront(mock.url, certs.leaf('good'));
    const { file } = scenarioWorkspace(scenario(front.url));
    // --ca names another CA (the self-signed certificate): the one that signed the server's comes from the variable.
    const other = join(certs.dir, 'self-signed.pem');
    const { code, stderr } = await runCli(['check', file, '--ca', other], {
      ...credentials(),
      NODE_EXTRA_CA_CERTS: certs.caFile,
    });
    expect(stderr).not.toContain('TLS_CERTIFICATE');
    expect(code).toBe(0);
  });

  it('run: the load and the token call trust --ca (every request answered)', async () => {
    front = await startTlsFront(mock.url, certs.leaf('good'));
    const { file, out } = scenarioWorkspace(
      scenario(front.url).replace('duration: 1m, rpm: 60', 'duration: 2s, rpm: 120'),
    );
    const { code, stderr } = await runMain(['run', file, '--out', out, '--ca', certs.caFile], credentials());
    expect(stderr).not.toMatch(/TLS_CERTIFICATE|TARGET_UNREACHABLE/);
    expect(code).not.toBe(4);
    expect(mock.stats().requests.identification.received).toBeGreaterThanOrEqual(4);
  });
});

describe('probe over TLS', () => {
  it('its token call trusts --ca; it says that its load (autocannon) does not verify certificates', async () => {
    front = await startTlsFront(mock.url, certs.leaf('good'));
    const { file, out } = scenarioWorkspace(scenario(front.url));
    const args = ['probe', file, '--connections', '1', '--step', '2s', '--out', out, '--ca', certs.caFile];
    const { code, stderr } = await runMain(args, credentials());
    expect(stderr).toContain(
      "the probe's token call verifies the server's certificate, but its load (autocannon) does not",
    );
    expect(stderr).not.toMatch(/TLS_CERTIFICATE|TARGET_UNREACHABLE/);
    expect(code, stderr).toBe(0);
  });

  it.each([
    ['a tunnel to sandbox', 'sandbox', ', tunnel: true'],
    ['production', 'production', ', tunnel: true'],
  ])(
    'refuses %s over https before anything is sent (exit 2): its load would carry the token unverified',
    async (_name, environment, tunnel) => {
      front = await startTlsFront(mock.url, certs.leaf('good'));
      const { file, out } = scenarioWorkspace(
        scenario(front.url, tunnel).replace('environment: mock', `environment: ${environment}`),
      );
      const before = mock.stats().requests.token.received;
      const args = ['probe', file, '--connections', '1', '--step', '2s', '--out', out, '--ca', certs.caFile];
      const { code, stderr } = await runMain(args, credentials());
      expect(code, stderr).toBe(2);
      expect(stderr).toContain(
        `probe: ${environment} at ${front.url} is https, and the probe's load client (autocannon) does not verify the server's certificate: the access token would go over a connection nobody checked`,
      );
      expect(stderr).toContain('loadproof run');
      expect(stderr).toContain('scenarios/capacity-step.yaml');
      expect(front.connections()).toBe(0);
      expect(mock.stats().requests.token.received).toBe(before);
    },
  );
});

describe('a CA file that is not one: exit 2, naming where it came from, nothing sent', () => {
  it('--ca with a file that holds no certificate', async () => {
    const { dir, file } = scenarioWorkspace(scenario('https://127.0.0.1:9'));
    const notPem = join(dir, 'not.pem');
    writeFileSync(notPem, 'hello\n');
    const { code, stderr } = await runMain(['check', file, '--ca', notPem], credentials());
    expect(code).toBe(2);
    expect(stderr).toContain(
      `--ca: ${JSON.stringify(notPem)} holds no PEM certificate; expected a PEM file of CA certificates`,
    );
  });

  it('target.tls.ca naming a missing file, or a private key', async () => {
    const { dir, file } = scenarioWorkspace(scenario('https://127.0.0.1:9', ', tls: { ca: missing.pem }'));
    const missing = await runMain(['check', file], credentials());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`target.tls.ca: ${JSON.stringify(join(dir, 'missing.pem'))} does not exist`);
    writeFileSync(join(dir, 'missing.pem'), certs.leaf('good').key);
    const key = await runMain(['check', file], credentials());
    expect(key.code).toBe(2);
    expect(key.stderr).toContain('holds a private key (not shown)');
    expect(key.stderr).not.toContain('BEGIN PRIVATE KEY');
  });
});

describe('an HTTP/2-only server', () => {
  it('is refused by name (HTTP_PROTOCOL, exit 4), not as a connect error', async () => {
    front = await startHttp2Only(certs.leaf('good'));
    const { file } = scenarioWorkspace(scenario(front.url));
    const { code, stderr } = await runMain(['check', file, '--ca', certs.caFile], credentials());
    expect(code).toBe(4);
    expect(stderr).toContain(
      `HTTP_PROTOCOL: the server at ${front.url} speaks only HTTP/2 (ALPN h2); loadproof's client speaks HTTP/1.1`,
    );
    expect(stderr).not.toContain('is the server running there');
  });
});
