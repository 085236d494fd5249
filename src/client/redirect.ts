/**
 * A redirect, in words: its status and where it pointed. loadproof never follows one (a load tool that did would
 * measure another server, and a token call would carry the client secret elsewhere), but it says where it went.
 * The Location is the server's: bounded, resolved against the request, without userinfo, query or fragment
 * (they may hold secrets), and printable.
 */

const MAX_LOCATION_CHARS = 200;

/** True for the statuses that redirect (3xx). */
export const isRedirect = (status: number): boolean => status >= 300 && status <= 399;

/** "307 to https://host/path" (with what was left out said), or "307 without a Location header". */
export function describeRedirect(status: number, location: unknown, requestUrl: string): string {
  const where = typeof location === 'string' ? sanitizeLocation(location, requestUrl) : undefined;
  return where === undefined ? `${status} without a usable Location header` : `${status} to ${where}`;
}

function sanitizeLocation(location: string, requestUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(location.slice(0, 4096), requestUrl);
  } catch {
    return undefined;
  }
  const dropped = [url.username !== '' || url.password !== '' ? 'userinfo' : '', url.search !== '' ? 'query' : '']
    .filter((d) => d !== '')
    .join(' and ');
  const shown = `${url.protocol}//${url.host}${url.pathname}`.replace(/[^\x21-\x7e]/g, '?');
  const bounded = shown.length > MAX_LOCATION_CHARS ? `${shown.slice(0, MAX_LOCATION_CHARS)}…` : shown;
  return dropped === '' ? bounded : `${bounded} (its ${dropped} not shown)`;
}
