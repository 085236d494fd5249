/**
 * Which CAs a TLS connection trusts: Node's own (its bundled CAs, and NODE_EXTRA_CA_CERTS), plus a private CA
 * the user gave (--ca, target.tls.ca). Node's `ca` option replaces its bundled CAs, so they are given again
 * beside it: a private CA adds trust, it never takes any away. One secure context per CA, made once: the load's
 * connections would otherwise parse every CA again each time they connect.
 */
import { readFileSync } from 'node:fs';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';

/** The most NODE_EXTRA_CA_CERTS is read of, bytes (a CA bundle is far smaller). */
const MAX_EXTRA_CA_BYTES = 1024 * 1024;

let made: { readonly ca: string; readonly context: SecureContext } | undefined;

/** tls.connect's options for trusting `ca` (PEM) besides Node's own CAs; none when there is no CA to add. */
export function trustOptions(ca: string | undefined): { secureContext?: SecureContext } {
  if (ca === undefined) return {};
  if (made?.ca !== ca) made = { ca, context: createSecureContext({ ca: [...rootCertificates, ...extraCas(), ca] }) };
  return { secureContext: made.context };
}

/** NODE_EXTRA_CA_CERTS, which Node adds to its own CAs only when no `ca` is given: kept when one is. */
function extraCas(): string[] {
  const file = process.env.NODE_EXTRA_CA_CERTS;
  if (file === undefined || file === '') return [];
  try {
    const text = readFileSync(file, 'latin1');
    return text.length > MAX_EXTRA_CA_BYTES ? [] : [text];
  } catch {
    // Node said so itself at start-up (a warning); its own CAs still apply.
    return [];
  }
}
