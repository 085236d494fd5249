/**
 * Where a run sends its traffic and with which credentials, once the guard has allowed it. A mock
 * scenario without a baseUrl starts the embedded mock (on a free loopback port, at the run's time
 * scale). At a loopback baseUrl, loadproof's own mock says its time scale and profile in its stats
 * and must run at the run's time scale; any other loopback server (a user's own stub of the API)
 * is a mock at time scale 1 whose profile is unknown. A real environment (through a loopback tunnel too) is never
 * asked for a mock's stats. Credentials come from --credentials or the
 * variables the scenario names; a mock falls back to its default ones, a real environment has none
 * to fall back to.
 */
import {
  type HttpProxy,
  parseJsonObject,
  ProxyTunnelError,
  smallRequest,
  tlsFailure,
  TOO_LARGE_CODE,
} from '../client/index.js';
import { RunFailure, type SendPermit, UsageError } from '../core/index.js';
import { MOCK_DEFAULTS, type MockThread, STATS_PATH } from '../mock/index.js';
import { effectiveLimits } from '../plan/index.js';
import type { Scenario, TargetKind } from '../scenario/index.js';
import type { ProfileName } from '../spec/index.js';
import { type Credentials, readCredentials } from './credentials.js';
import { proxyRoute } from './proxy-route.js';
import { readTrustedCa } from './trusted-ca.js';

export interface ResolvedTarget {
  /**
   * The guard's permit: a target is resolved (mock started, credentials read, its stats asked) only once the guard
   * allowed the traffic.
   */
  readonly permit: SendPermit;
  readonly environment: Scenario['target']['environment'];
  readonly kind: TargetKind;
  /** A real environment reached at a loopback address that forwards to it (target.tunnel). */
  readonly tunnel: boolean;
  readonly baseUrl: string;
  /** The proxy every connection to baseUrl goes through (a CONNECT tunnel), or undefined: reached directly. */
  readonly proxy: HttpProxy | undefined;
  readonly audience: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Where the credentials came from, for messages. */
  readonly credentialSource: string;
  /** The mock profile, when the target is a mock whose profile is known. */
  readonly profile: string | null;
  /** The embedded mock (in its own worker thread), closed by the run. */
  readonly embedded: MockThread | undefined;
  /** Things to tell the user before the run (e.g. a credentials file others can read). */
  readonly warnings: readonly string[];
  /** A private CA (PEM) every TLS connection of the run trusts besides Node's own (--ca, target.tls.ca). */
  readonly ca: string | undefined;
}

interface TargetOptions {
  readonly timeScale: number;
  /** --mock-profile: overrides the scenario's profile for an embedded mock. */
  readonly mockProfile: ProfileName | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** --credentials <file>. */
  readonly credentialsFile: string | undefined;
  /** --ca <file>: overrides the scenario's target.tls.ca. */
  readonly caFile?: string | undefined;
}

/** The target of a run: a real service, the embedded mock (started here), or a mock at a loopback baseUrl. */
export async function resolveTarget(
  scenario: Scenario,
  permit: SendPermit,
  options: TargetOptions,
): Promise<ResolvedTarget> {
  const t = scenario.target;
  const caPath = options.caFile ?? t.tls?.ca;
  const ca = await readTrustedCa(
    caPath === undefined ? undefined : { path: caPath, from: options.caFile === undefined ? 'target.tls.ca' : '--ca' },
  );
  const { clientIdEnv: idVar, clientSecretEnv: secretVar } = t.credentials;
  const read = await readCredentials({ file: options.credentialsFile, env: options.env, idVar, secretVar });
  const credentials = read.credentials;
  const warnings = [...read.warnings];
  // The embedded mock (no baseUrl yet) runs in this process: never through a proxy.
  const route = t.baseUrl === undefined ? { proxy: undefined, warning: undefined } : proxyRoute(t.baseUrl, options.env);
  if (route.warning !== undefined) warnings.push(route.warning);
  if (options.mockProfile !== undefined && (t.environment !== 'mock' || t.baseUrl !== undefined)) {
    throw new UsageError('--mock-profile applies to the embedded mock only; this scenario names a target.baseUrl');
  }
  if (t.environment !== 'mock') {
    if (credentials === undefined) {
      throw new UsageError(
        `no credentials for the ${t.environment} target: set $${idVar} and $${secretVar} (names from target.credentials), or pass --credentials <file>`,
        'nothing was sent',
      );
    }
    const baseUrl = t.baseUrl!;
    return {
      permit,
      environment: t.environment,
      kind: 'real',
      tunnel: t.tunnel === true,
      baseUrl,
      proxy: route.proxy,
      audience: t.audience ?? baseAudience(baseUrl),
      ...fromCredentials(credentials),
      profile: null,
      embedded: undefined,
      warnings,
      ca,
    };
  }
  if (t.baseUrl === undefined) return embeddedMockTarget(scenario, permit, options, credentials, warnings);
  return loopbackMockTarget(t.baseUrl, t.audience, route.proxy, permit, options.timeScale, credentials, warnings, ca);
}

/**
 * The embedded mock, started for the run: it accepts the credentials given, so they travel the same path as
 * against a real service. It runs in its own thread: sharing the generator's event loop would delay both.
 */
async function embeddedMockTarget(
  scenario: Scenario,
  permit: SendPermit,
  options: TargetOptions,
  credentials: Credentials | undefined,
  warnings: string[],
): Promise<ResolvedTarget> {
  // Loaded here: a run against any other target needs none of the mock's code.
  const { startMockThread } = await import('../mock/index.js');
  const limits = raisedMockLimits(scenario);
  if (limits !== undefined && options.mockProfile !== undefined) {
    warnings.push(
      `--mock-profile ${options.mockProfile}: its identification limits are replaced by the scenario's raised ones (${limits.sustainedRpm} rpm sustained, ${limits.burstRpm} for ${limits.burstMinutes} min, ${limits.maxInFlight} in flight)`,
    );
  }
  const mock = await startMockThread({
    profile: options.mockProfile ?? scenario.target.profile ?? MOCK_DEFAULTS.profile,
    timeScale: options.timeScale,
    port: 0,
    ...(limits === undefined ? {} : { limits }),
    ...(credentials === undefined ? {} : { clientId: credentials.clientId, clientSecret: credentials.clientSecret }),
  });
  const own = { clientId: mock.clientId, clientSecret: mock.clientSecret, credentialSource: 'the embedded mock' };
  return {
    permit,
    environment: 'mock',
    kind: 'embedded-mock',
    tunnel: false,
    baseUrl: mock.url,
    proxy: undefined,
    audience: mock.audience,
    ...(credentials === undefined ? own : fromCredentials(credentials)),
    profile: mock.profile,
    embedded: mock,
    warnings,
    ca: undefined,
  };
}

/**
 * Limits support raised for this customer (the scenario's `limits`, the documented ones filling what it leaves
 * out, as the guard reads them) are the embedded mock's too: a rehearsal meets them. They replace a profile's.
 */
function raisedMockLimits(scenario: Scenario) {
  const raised = scenario.limits === undefined ? undefined : effectiveLimits(scenario);
  return raised === undefined
    ? undefined
    : {
        sustainedRpm: raised.sustainedRpm,
        burstRpm: Math.max(raised.burstRpm, raised.sustainedRpm),
        burstMinutes: raised.burstMinutes,
        maxInFlight: raised.maxInFlight,
      };
}

/**
 * A mock at a loopback baseUrl: loadproof's own (its stats say its time scale, which must be the run's) or
 * any other server, a user's stub of the API, which runs in real time.
 */
async function loopbackMockTarget(
  baseUrl: string,
  audience: string | undefined,
  proxy: HttpProxy | undefined,
  permit: SendPermit,
  timeScale: number,
  credentials: Credentials | undefined,
  warnings: string[],
  ca: string | undefined,
): Promise<ResolvedTarget> {
  const info = await mockInfo(permit, baseUrl, proxy, ca);
  if (info === undefined) {
    // Not loadproof's mock: nothing can tell it a time scale, so it runs in real time.
    if (timeScale !== 1) {
      throw new UsageError(
        `--time-scale ${timeScale}: the server at ${baseUrl} is not loadproof's mock (it has no ${STATS_PATH} saying its time scale), so it runs in real time and can only be tested at time scale 1`,
        'drop --time-scale, or run loadproof mock there',
      );
    }
  } else if (info.timeScale !== timeScale) {
    throw new UsageError(
      `--time-scale ${timeScale} does not match the mock at ${baseUrl}, which runs at time scale ${info.timeScale}`,
      `start the mock with --time-scale ${timeScale}, or run with --time-scale ${info.timeScale}`,
    );
  }
  const defaults = {
    clientId: MOCK_DEFAULTS.clientId,
    clientSecret: MOCK_DEFAULTS.clientSecret,
    credentialSource: "the mock's default credentials",
  };
  return {
    permit,
    environment: 'mock',
    kind: info === undefined ? 'loopback-stub' : 'loadproof-mock',
    tunnel: false,
    baseUrl,
    proxy,
    audience: audience ?? baseAudience(baseUrl),
    ...(credentials === undefined ? defaults : fromCredentials(credentials)),
    profile: info?.profile ?? null,
    embedded: undefined,
    warnings,
    ca,
  };
}

const fromCredentials = (c: { clientId: string; clientSecret: string; source: string }) => ({
  clientId: c.clientId,
  clientSecret: c.clientSecret,
  credentialSource: c.source,
});

/**
 * What loadproof's mock at `baseUrl` says of itself (its stats), or undefined when the server there
 * answers but is not loadproof's mock. Unreachable: exit 4.
 */
async function mockInfo(
  permit: SendPermit,
  baseUrl: string,
  proxy: HttpProxy | undefined,
  ca: string | undefined,
): Promise<{ timeScale: number; profile: string | null } | undefined> {
  const url = baseUrl.replace(/\/+$/, '') + STATS_PATH;
  let status: number;
  let body: unknown;
  try {
    const res = await smallRequest(permit, url, {
      signal: AbortSignal.timeout(5000),
      proxy,
      ...(ca === undefined ? {} : { ca }),
    });
    status = res.status;
    body = parseJsonObject(res.text);
  } catch (error) {
    const code = (error as { code?: string }).code ?? (error as Error).name;
    // It answered, with more than any stats of loadproof's mock: another server (a large 404 page, say).
    if (code === TOO_LARGE_CODE) return undefined;
    if (error instanceof ProxyTunnelError)
      throw new RunFailure('TARGET_UNREACHABLE', `cannot reach the mock at ${baseUrl} ${error.message}`, PROXY_HINT);
    // A server that answered the handshake is running: its TLS is what is wrong, said as such.
    throw (
      tlsFailure(baseUrl, error) ??
      new RunFailure(
        'TARGET_UNREACHABLE',
        `cannot reach the mock at ${baseUrl} (${code})`,
        'is the server running there?',
      )
    );
  }
  const stats = body as { timeScale?: unknown; profile?: unknown } | undefined;
  if (
    status !== 200 ||
    typeof stats !== 'object' ||
    stats === null ||
    typeof stats.timeScale !== 'number' ||
    !(stats.timeScale > 0)
  )
    return undefined;
  return { timeScale: stats.timeScale, profile: typeof stats.profile === 'string' ? stats.profile : null };
}

const PROXY_HINT = "check the proxy variable named, or list the target's host in NO_PROXY to reach it directly";

/**
 * The audience a base URL stands for: the spec's `{base_url}`, which its paths follow with `/oauth/token`, so
 * without a trailing slash. The service compares audiences exactly; `baseUrl: https://host/` must still work.
 */
function baseAudience(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}
