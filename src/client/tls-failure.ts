/**
 * A TLS handshake that failed, in words: a certificate this client does not accept (which problem, and how to
 * trust a private CA), or a server that speaks only HTTP/2. Either is the target's configuration, never a
 * server that is down: it is not "unreachable". Verification is never offered to be skipped.
 */
import { RunFailure } from '../core/index.js';
import { certificateFields, type PeerCertificate, type WithPeer } from './http1/peer-certificate.js';

/** How to make a private CA trusted, in each of the three ways loadproof takes one. */
const TRUST_A_PRIVATE_CA =
  'To trust a private CA, give its certificate (PEM): --ca /path/ca.pem, target.tls.ca in the scenario, or NODE_EXTRA_CA_CERTS=/path/ca.pem';

/** Node's verification codes for a chain that ends at a CA nobody told this client to trust. */
const UNTRUSTED_ISSUER = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
]);

/** The failure a TLS error stands for, or undefined when `error` is not one (a refused connection, a reset…). */
export function tlsFailure(url: string, error: unknown): RunFailure | undefined {
  const found = tlsError(error);
  if (found === undefined) return undefined;
  const { code, peer, host } = found;
  const origin = originOf(url);
  if (found.noHttp1)
    return new RunFailure(
      'HTTP_PROTOCOL',
      `the server at ${origin} speaks only HTTP/2 (ALPN h2); loadproof's client speaks HTTP/1.1 (${code === 'LOADPROOF_NOT_HTTP1' ? 'it offered ALPN http/1.1 and the server chose another protocol' : 'it offered ALPN http/1.1 and the server refused it with the TLS alert no_application_protocol'}). Point target.baseUrl at an endpoint that also accepts HTTP/1.1 (a gateway can offer both h2 and http/1.1).`,
      'nothing was sent to it',
    );
  const problem = certificateProblem(code, peer, host);
  if (problem === undefined) return undefined;
  return new RunFailure(
    'TLS_CERTIFICATE',
    `the server at ${origin} presented a TLS certificate this client does not accept: ${problem.what} (${code}); nothing was sent to it. ${problem.remedy}.`,
    'loadproof never skips certificate verification',
  );
}

interface CertificateProblem {
  readonly what: string;
  /** What to do about it, as a sentence. */
  readonly remedy: string;
}

function certificateProblem(
  code: string,
  peer: PeerCertificate | undefined,
  host: string | undefined,
): CertificateProblem | undefined {
  const subject = peer?.subject === undefined ? '' : ` "${peer.subject}"`;
  if (UNTRUSTED_ISSUER.has(code)) {
    const issuer = peer?.issuer === undefined ? '' : ` ("${peer.issuer}")`;
    return { what: `its issuer${issuer} is not a CA this client trusts`, remedy: TRUST_A_PRIVATE_CA };
  }
  if (code === 'DEPTH_ZERO_SELF_SIGNED_CERT')
    return {
      what: `the certificate${subject} is self-signed, and not one this client trusts`,
      remedy: `${TRUST_A_PRIVATE_CA} (a self-signed certificate is trusted the same way, as its own CA)`,
    };
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    const covers = peer?.altNames ?? (peer?.subject === undefined ? undefined : `CN ${peer.subject}`);
    return {
      what: `it is not for ${host ?? 'the host in the URL'}${covers === undefined ? '' : `: it covers ${covers}`}`,
      remedy: 'Use a host name the certificate covers in target.baseUrl, or ask for a certificate that covers this one',
    };
  }
  if (code === 'CERT_HAS_EXPIRED')
    return {
      what: `the certificate${subject} expired${peer?.validTo === undefined ? '' : ` on ${peer.validTo}`}`,
      remedy: "The server's certificate must be renewed (or this machine's clock is wrong)",
    };
  if (code === 'CERT_NOT_YET_VALID')
    return {
      what: `the certificate${subject} is not valid yet${peer?.validFrom === undefined ? '' : ` (not before ${peer.validFrom})`}`,
      remedy: "Check this machine's clock, or the server's certificate",
    };
  if (/^(CERT_|ERR_TLS_CERT|UNABLE_TO_|INVALID_CA|PATH_LENGTH|INVALID_PURPOSE|HOSTNAME_MISMATCH)/.test(code))
    return { what: 'it could not be verified', remedy: TRUST_A_PRIVATE_CA };
  return undefined;
}

/** The TLS error in `error`'s cause chain: its code, what the server showed, and the host it was checked for. */
function tlsError(
  error: unknown,
): { code: string; noHttp1: boolean; peer?: PeerCertificate; host?: string } | undefined {
  const seen = new Set<unknown>();
  for (let e: unknown = error; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    const peer = (e as WithPeer).peerCertificate ?? fromNodeError(e);
    const host = (e as { host?: unknown }).host;
    // The alert arrives as its own code from tls.connect, as EPROTO with the alert's words from node:https.
    const noHttp1 =
      code === 'LOADPROOF_NOT_HTTP1' ||
      code === 'ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL' ||
      (code === 'EPROTO' && /alert no application protocol/i.test(e.message));
    return { code, noHttp1, ...(peer === undefined ? {} : { peer }), ...(typeof host === 'string' ? { host } : {}) };
  }
  return undefined;
}

/** Node's ERR_TLS_CERT_ALTNAME_INVALID carries the certificate itself: the server's words, made printable. */
function fromNodeError(e: Error): PeerCertificate | undefined {
  const cert = (e as { cert?: unknown }).cert;
  if (cert === null || typeof cert !== 'object') return undefined;
  const fields = certificateFields(cert);
  return Object.keys(fields).length === 0 ? undefined : fields;
}

/** The URL's scheme, host and port only: never a path, query or userinfo. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(the target)';
  }
}
