/**
 * Certificates made at test time by openssl, in a temporary folder: a private CA, leaves it signs (for
 * 127.0.0.1/localhost, for another name, expired, not yet valid) and a self-signed leaf. Each openssl call is
 * bounded in time. `openssl ca` sets exact dates (OpenSSL 3.0's `x509` has no -not_before/-not_after).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  readonly dir: string;
  /** The private CA's certificate (PEM file path). */
  readonly caFile: string;
  /** A key and certificate pair, as a server takes them. */
  readonly leaf: (name: 'good' | 'wrong-name' | 'expired' | 'future' | 'self-signed') => { key: string; cert: string };
}

const LOCAL_NAMES = 'IP:127.0.0.1,DNS:localhost';

export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'loadproof-certs-'));
  const at = (name: string): string => join(dir, name);
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, timeout: 30_000, stdio: 'pipe' });
  };
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...ecKey,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '3',
    '-subj',
    '/CN=loadproof test CA',
  );
  openssl('req', ...ecKey, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=localhost');
  writeFileSync(at('index.txt'), '');
  writeFileSync(at('serial'), '1000\n');
  writeFileSync(
    at('ca.cnf'),
    [
      '[ca]\ndefault_ca = test_ca',
      '[test_ca]\ndir = .\ndatabase = index.txt\nserial = serial\nnew_certs_dir = .\ncertificate = ca.pem',
      'private_key = ca.key\ndefault_md = sha256\npolicy = any\nunique_subject = no\ndefault_days = 3',
      '[any]\ncommonName = supplied',
      `[local]\nsubjectAltName = ${LOCAL_NAMES}`,
      '[wrong]\nsubjectAltName = DNS:other.example',
    ].join('\n'),
  );
  const sign = (out: string, extensions: string, dates: string[] = []): void =>
    openssl('ca', '-batch', '-config', 'ca.cnf', '-extensions', extensions, '-in', 'leaf.csr', '-out', out, ...dates);
  sign('good.pem', 'local');
  sign('wrong-name.pem', 'wrong');
  sign('expired.pem', 'local', ['-startdate', '20200101000000Z', '-enddate', '20200102000000Z']);
  sign('future.pem', 'local', ['-startdate', '20990101000000Z', '-enddate', '20990102000000Z']);
  openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'self.key');
  openssl(
    'req',
    '-x509',
    '-key',
    'self.key',
    '-out',
    'self-signed.pem',
    '-days',
    '3',
    '-subj',
    '/CN=localhost',
    '-addext',
    `subjectAltName=${LOCAL_NAMES}`,
  );
  return {
    dir,
    caFile: at('ca.pem'),
    leaf: (name) => ({
      key: readFileSync(at(name === 'self-signed' ? 'self.key' : 'leaf.key'), 'utf8'),
      cert: readFileSync(at(`${name}.pem`), 'utf8'),
    }),
  };
}
