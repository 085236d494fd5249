/**
 * The proxy a target is reached through, from the environment, as curl reads it: HTTPS_PROXY for an https target,
 * HTTP_PROXY for an http one (no fallback from one to the other: undici's EnvHttpProxyAgent sends https through
 * HTTP_PROXY when HTTPS_PROXY is unset, curl does not, and a proxy the user did not name for https is not used), and
 * NO_PROXY for the hosts reached directly (proxy-no-proxy.ts). The lowercase variable wins where both spellings are
 * set, as in curl and undici; a variable set to nothing counts as unset. ALL_PROXY is not read.
 *
 * A proxy URL is `http://[user:password@]host[:port]`, the scheme optional and the port 1080 when none is given (as
 * curl); user and password are URL-decoded into a `Proxy-Authorization: Basic` header. Only plain-HTTP proxies are
 * spoken to (a CONNECT tunnel, then TLS to the target inside it): an https:// or socks proxy is refused. The user
 * and password are never shown: messages name the proxy by host and port only.
 */
import { echoValue, UsageError } from '../../core/index.js';
import { bypassesProxy, parseNoProxy } from './proxy-no-proxy.js';

/** An HTTP proxy to tunnel through. */
export interface HttpProxy {
  /** Its host (an IPv6 address without brackets) and port. */
  readonly host: string;
  readonly port: number;
  /** `host:port`: how every message names it, never with its credentials (a long host cut). */
  readonly shown: string;
  /** The variable it came from (e.g. HTTPS_PROXY or https_proxy). */
  readonly variable: string;
  /** The `Proxy-Authorization` header's value, when the URL has a user: a secret, sent to the proxy only. */
  readonly authorization: string | undefined;
  /** The password, and user:password, for the secret mask (every output passes through it). */
  readonly secrets: readonly string[];
}

type Env = Readonly<Record<string, string | undefined>>;

/** curl's default proxy port. */
const DEFAULT_PROXY_PORT = 1080;

/** The proxy the environment sends `targetUrl` through, or undefined when it is reached directly. */
export function proxyFor(targetUrl: string, env: Env): HttpProxy | undefined {
  const url = new URL(targetUrl);
  const set = readVariable(env, url.protocol === 'https:' ? 'https_proxy' : 'http_proxy');
  if (set === undefined) return undefined;
  const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const noProxy = readVariable(env, 'no_proxy');
  if (noProxy !== undefined && bypassesProxy(parseNoProxy(noProxy.value), url.hostname, port)) return undefined;
  return parseProxyUrl(set.name, set.value);
}

/** The lowercase variable if set to something, else the uppercase one. */
function readVariable(env: Env, lower: string): { name: string; value: string } | undefined {
  for (const name of [lower, lower.toUpperCase()]) {
    const value = env[name]?.trim();
    if (value !== undefined && value !== '') return { name, value };
  }
  return undefined;
}

/** Parses the proxy URL in `variable`; a UsageError (exit 2) naming it, its value (credentials hidden) and the form. */
export function parseProxyUrl(variable: string, value: string): HttpProxy {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  const bad = (why: string): UsageError =>
    new UsageError(
      `${variable}=${echoValue(hideCredentials(value))}: ${why}; expected http://[user:password@]host[:port]`,
      `fix or unset ${variable}, or list the target's host in NO_PROXY; nothing was sent`,
    );
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw bad('not a URL');
  }
  if (url.protocol !== 'http:')
    throw bad(`a ${url.protocol.slice(0, -1)} proxy; loadproof speaks to a proxy in plain HTTP (CONNECT) only`);
  if (url.hostname === '') throw bad('no host');
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '')
    throw bad('a path, query or fragment');
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  // The URL parser drops an explicit :80 (http's default): whether a port was written is read from the text.
  const authority = withScheme
    .replace(/^[^:]*:\/\//, '')
    .split(/[/?#]/)[0]!
    .replace(/^.*@/, '');
  const port = url.port !== '' ? Number(url.port) : /:\d+$/.test(authority) ? 80 : DEFAULT_PROXY_PORT;
  const shown = `${echoValue(url.hostname)}:${port}`;
  if (url.username === '' && url.password === '')
    return { host, port, shown, variable, authorization: undefined, secrets: [] };
  const user = decode(url.username, bad);
  const password = decode(url.password, bad);
  const basic = Buffer.from(`${user}:${password}`, 'utf8').toString('base64');
  return {
    host,
    port,
    shown,
    variable,
    authorization: `Basic ${basic}`,
    secrets: credentialForms(value, url, { user, password, basic }),
  };
}

/**
 * Every form the credentials of `value` may be printed in, for the secret mask: the password and user:password
 * decoded, as the URL parser writes them, and as typed (percent-encoded or not), and the Basic header's base64.
 */
function credentialForms(
  value: string,
  url: URL,
  { user, password, basic }: { user: string; password: string; basic: string },
): string[] {
  const typed = userInfo(value) ?? '';
  const typedPassword = typed.includes(':') ? typed.slice(typed.indexOf(':') + 1) : '';
  const forms = [
    password,
    url.password,
    typedPassword,
    `${user}:${password}`,
    `${url.username}:${url.password}`,
    typed,
  ];
  return [...new Set([...forms, basic])].filter((s) => s !== '' && s !== ':');
}

/** What `value` holds between its scheme (or its start) and the last `@`: its user and password, as typed. */
function userInfo(value: string): string | undefined {
  const match = /^(?:[a-z][a-z0-9+.-]*:\/\/)?([\s\S]*)@/i.exec(value);
  return match?.[1];
}

function decode(text: string, bad: (why: string) => Error): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw bad('a user or password that is not valid percent-encoding');
  }
}

/**
 * `value` with any user and password replaced by `***`: what a message may show of a proxy URL. Everything between
 * the scheme (or the start) and the last `@` goes, whether or not the URL parses: a password typed without its
 * percent-encoding may hold `/`, `#`, `?` or `@`, and hiding a path with it hides nothing the user needs.
 */
export function hideCredentials(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[\s\S]*@/i, (_, scheme: string | undefined) => `${scheme ?? ''}***@`);
}
