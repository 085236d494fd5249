/**
 * The proxy a target is reached through: the one the environment names for it (HTTPS_PROXY, HTTP_PROXY, NO_PROXY,
 * read as curl reads them: src/client/http1/proxy-env.ts), with one exception that keeps the guard's judgement
 * true. A loopback URL names this machine, and the guard judged it as this machine (a mock here, with no traffic
 * rules); a proxy on another machine would connect to its own loopback, a server nobody judged. Such a target is
 * reached directly, and the user is told. A proxy on this machine (a local relay, or the tests' tinyproxy) reaches
 * the same loopback, and is used. The embedded mock never takes this path: it runs inside this process.
 */
import { type HttpProxy, proxyFor } from '../client/index.js';
import { isLoopbackUrl } from '../guard/index.js';

interface ProxyRoute {
  readonly proxy: HttpProxy | undefined;
  /** Why the environment's proxy is not used, for the user; undefined when it is, or there is none. */
  readonly warning: string | undefined;
}

export function proxyRoute(baseUrl: string, env: Readonly<Record<string, string | undefined>>): ProxyRoute {
  const proxy = proxyFor(baseUrl, env);
  if (proxy === undefined || !isLoopbackUrl(baseUrl) || isLoopbackUrl(`http://${proxyAuthority(proxy)}/`))
    return { proxy, warning: undefined };
  return {
    proxy: undefined,
    warning: `${proxy.variable} names the proxy ${proxy.shown}, but the target ${new URL(baseUrl).host} is this machine: it is reached directly (a proxy elsewhere would reach its own loopback); list it in NO_PROXY to say so`,
  };
}

const proxyAuthority = (proxy: HttpProxy): string => (proxy.host.includes(':') ? `[${proxy.host}]` : proxy.host);
