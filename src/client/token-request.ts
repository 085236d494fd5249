/** What the token request carries, and what a token must look like to be carried back in a header. */
import { GRANT_TYPE } from '../spec/index.js';

/** Who asks for a token: the client credentials and the audience the token is for. */
interface TokenClient {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly audience: string;
}

/** The client-credentials token request's body, as the spec says (JSON, in this key order): the one builder of it. */
export function tokenRequestBody(client: TokenClient): string {
  return JSON.stringify({
    client_id: client.clientId,
    client_secret: client.clientSecret,
    audience: client.audience,
    grant_type: GRANT_TYPE,
  });
}

/** A token we can put in a header as is: visible ASCII (RFC 6750's b64token is a subset). */
export const HEADER_SAFE = /^[\x21-\x7e]+$/;
