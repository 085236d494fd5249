/**
 * What a TLS server showed of itself during the handshake: its certificate's names and dates, and the
 * application protocol agreed. Read before Node judges the certificate, because a rejected certificate is
 * gone with its socket: without this, "expired" could not say when, nor "wrong name" which names it covers.
 * Verification itself is Node's, untouched.
 */
import type { TLSSocket } from 'node:tls';

export interface PeerCertificate {
  /** The certificate's subject CN, when it has one. */
  readonly subject?: string;
  /** Its issuer's CN, when it has one. */
  readonly issuer?: string;
  /** Its subjectAltName as Node prints it ("DNS:example.com, IP Address:127.0.0.1"). */
  readonly altNames?: string;
  readonly validFrom?: string;
  readonly validTo?: string;
}

/** An error of a TLS socket, with what the server showed before it (when it showed anything). */
export interface WithPeer {
  peerCertificate?: PeerCertificate;
}

/** Remembers `socket`'s peer certificate as soon as the handshake ends, before Node's own check runs. */
export function watchPeerCertificate(socket: TLSSocket): () => PeerCertificate | undefined {
  let seen: PeerCertificate | undefined;
  // Prepended: Node's own 'secure' listener destroys the socket (and its certificate) when verification fails.
  socket.prependOnceListener('secure', () => {
    const cert = socket.getPeerCertificate();
    if (cert === null || typeof cert !== 'object' || Object.keys(cert).length === 0) return;
    seen = certificateFields(cert);
  });
  return () => seen;
}

/** The fields of a certificate as Node gives it (a socket's peer, or an error's `cert`), each printable and bounded. */
export function certificateFields(cert: {
  subject?: { CN?: unknown };
  issuer?: { CN?: unknown };
  subjectaltname?: unknown;
  valid_from?: unknown;
  valid_to?: unknown;
}): PeerCertificate {
  return {
    ...text('subject', cert.subject?.CN),
    ...text('issuer', cert.issuer?.CN),
    ...text('altNames', cert.subjectaltname),
    ...text('validFrom', cert.valid_from),
    ...text('validTo', cert.valid_to),
  };
}

/** Attaches what the server showed to `error` (a Node error of its socket), for the words of the failure. */
export function withPeer<E extends Error>(error: E, peer: PeerCertificate | undefined): E & WithPeer {
  if (peer !== undefined) (error as E & WithPeer).peerCertificate = peer;
  return error;
}

/** A field, bounded and printable, when the certificate has it as a string. */
function text(key: keyof PeerCertificate, value: unknown): Partial<PeerCertificate> {
  if (typeof value !== 'string' || value === '') return {};
  const printable = value.replace(/[^\x20-\x7e]/g, '?');
  return { [key]: printable.length > 300 ? `${printable.slice(0, 300)}…` : printable };
}
