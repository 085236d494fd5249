/**
 * A private certificate authority made with openssl at test time, and a server certificate for 127.0.0.1 that it
 * signed: what a user's own CA looks like to loadproof (trusted only through NODE_EXTRA_CA_CERTS or its own --ca).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const OPENSSL = process.env.LOADPROOF_OPENSSL ?? '/usr/bin/openssl';
export const hasOpenssl = existsSync(OPENSSL);

export interface PrivateCa {
  /** The CA's certificate (PEM): what the client is told to trust. */
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

/** Makes the CA and the server's certificate in `dir` (a temporary folder without spaces in its path). */
export function makePrivateCa(dir: string): PrivateCa {
  const openssl = (args: string): void => void execFileSync(OPENSSL, args.split(' '), { cwd: dir, stdio: 'pipe' });
  const newKey = '-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes';
  openssl(
    `req -x509 ${newKey} -keyout ca.key -out ca.pem -days 2 -subj /CN=loadproof-gateway-tests-CA ` +
      '-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl(`req ${newKey} -keyout server.key -out server.csr -subj /CN=127.0.0.1`);
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  openssl(
    'x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile server.ext',
  );
  return { caFile: join(dir, 'ca.pem'), certFile: join(dir, 'server.pem'), keyFile: join(dir, 'server.key') };
}
