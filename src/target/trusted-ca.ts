/**
 * The private CA a run trusts besides Node's own: `--ca <file>` or the scenario's `target.tls.ca`. Read once,
 * before anything is sent, bounded, and checked to be PEM certificates, each problem naming where the path came
 * from (exit 2). Nothing of the file is ever printed.
 */
import { X509Certificate } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';

import { echoValue, UsageError } from '../core/index.js';

/** A CA bundle is a few certificates; a file larger than this is not one. */
const MAX_CA_BYTES = 1024 * 1024;
const EXPECTED = 'expected a PEM file of CA certificates (-----BEGIN CERTIFICATE-----)';
const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Where the CA's path came from, for messages: the flag or the scenario field. */
interface CaSource {
  readonly path: string;
  readonly from: '--ca' | 'target.tls.ca';
}

/** The CA certificates (PEM) at `source`, or undefined when no CA is given. */
export async function readTrustedCa(source: CaSource | undefined): Promise<string | undefined> {
  if (source === undefined) return undefined;
  const refuse = (why: string): never => {
    throw new UsageError(
      `${source.from}: ${echoValue(JSON.stringify(source.path))} ${why}; ${EXPECTED}`,
      'nothing was sent',
    );
  };
  const info = await stat(source.path).catch((error: NodeJS.ErrnoException) =>
    refuse(error.code === 'ENOENT' ? 'does not exist' : `cannot be read (${error.code ?? 'error'})`),
  );
  if (!info.isFile()) refuse('is not a regular file');
  if (info.size > MAX_CA_BYTES) refuse(`is ${info.size} bytes, more than ${MAX_CA_BYTES}`);
  const text = await readFile(source.path, 'latin1').catch((error: NodeJS.ErrnoException) =>
    refuse(`cannot be read (${error.code ?? 'error'})`),
  );
  if (text.length > MAX_CA_BYTES) refuse(`is more than ${MAX_CA_BYTES} bytes`);
  // A private key has no business here: refused, so that it is never passed around as a "CA".
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text))
    refuse('holds a private key (not shown); give the certificate only');
  const blocks = text.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) refuse('holds no PEM certificate');
  blocks.forEach((block, i) => {
    try {
      new X509Certificate(block);
    } catch {
      refuse(`holds a certificate that cannot be parsed (the ${ordinal(i + 1)})`);
    }
  });
  return blocks.join('\n');
}

const ordinal = (n: number): string => `${n}${n === 1 ? 'st' : n === 2 ? 'nd' : n === 3 ? 'rd' : 'th'}`;
