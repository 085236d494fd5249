/**
 * Who announces the test (`--contact`, `--client-id`), checked before anything is written: one line each, of a
 * bounded length, and a client_id that is not the client secret (a notice goes to people; a secret never does).
 */
import { UsageError } from '../core/index.js';

const MAX_CONTACT_CHARS = 200;
const MAX_CLIENT_ID_CHARS = 200;
/** Controls, bidi and line separators: a notice line stays one visible line. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/** Throws a UsageError (exit 2) naming the flag, the value and what is expected; `secret`: the client secret. */
export function checkNoticeParties(
  parties: { readonly contact?: string | undefined; readonly clientId?: string | undefined },
  secret: string | undefined,
): void {
  const { contact, clientId } = parties;
  if (contact !== undefined && (contact.trim() === '' || contact.length > MAX_CONTACT_CHARS || INVISIBLE.test(contact)))
    throw new UsageError(
      `--contact: expected a name and an address on one line, 1 to ${MAX_CONTACT_CHARS} characters, like "Jane Roe <jane.roe@example.com>", got ${JSON.stringify(contact.slice(0, 60))}${contact.length > 60 ? '…' : ''}`,
      'nothing was written',
    );
  if (clientId === undefined) return;
  // Compared before anything is shown: the value given is not echoed when it is the secret.
  if (secret !== undefined && secret !== '' && clientId === secret)
    throw new UsageError(
      '--client-id: the value given is the client secret (not shown); expected the client_id, the non-secret identifier of the OAuth client',
      'nothing was written',
    );
  if (!/^[\x21-\x7e]+$/.test(clientId) || clientId.length > MAX_CLIENT_ID_CHARS)
    throw new UsageError(
      `--client-id: expected the OAuth client_id, 1 to ${MAX_CLIENT_ID_CHARS} visible ASCII characters without spaces, got ${JSON.stringify(clientId.slice(0, 60))}`,
      'nothing was written',
    );
}
