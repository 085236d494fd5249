/**
 * Where a run sends its traffic and with which credentials. A mock scenario without a baseUrl
 * starts the embedded mock (on a free loopback port, at the run's time scale). A mock baseUrl must
 * be loopback, and that mock must run at the same time scale. Real environments are refused until
 * the guard that enforces the spec's rules for them exists (issue 4).
 */
import { request } from 'undici';
import { GuardRefusal, RunFailure, UsageError } from '../core/errors.js';
import { MOCK_DEFAULTS, type MockServer, type ProfileName, STATS_PATH, startMockServer } from '../mock/index.js';
import type { Scenario } from '../scenario/index.js';

export interface ResolvedTarget {
  readonly environment: Scenario['target']['environment'];
  readonly baseUrl: string;
  readonly audience: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Where the credentials came from, for messages. */
  readonly credentialSource: string;
  /** The mock profile, when the target is a mock whose profile is known. */
  readonly profile: string | null;
  /** The embedded mock, closed by the run. */
  readonly embedded: MockServer | undefined;
}

export interface TargetOptions {
  readonly timeScale: number;
  /** --mock-profile: overrides the scenario's profile for an embedded mock. */
  readonly mockProfile: ProfileName | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
}

const LOOPBACK_HOST = /^(127(?:\.\d{1,3}){3}|\[::1\]|localhost)$/i;

export function isLoopbackUrl(url: string): boolean {
  try {
    return LOOPBACK_HOST.test(new URL(url).hostname);
  } catch {
    return false;
  }
}

export async function resolveTarget(scenario: Scenario, options: TargetOptions): Promise<ResolvedTarget> {
  const t = scenario.target;
  if (t.environment !== 'mock') {
    throw new GuardRefusal([
      `target.environment is ${t.environment}: runs against a real environment need the guard that checks the spec's advance-notice and coordination rules, which this version does not have yet; only mock targets run`,
    ]);
  }
  if (t.baseUrl === undefined) {
    const mock = await startMockServer({ profile: options.mockProfile ?? t.profile ?? MOCK_DEFAULTS.profile, timeScale: options.timeScale, port: 0 });
    return {
      environment: 'mock',
      baseUrl: mock.url,
      audience: mock.audience,
      clientId: mock.clientId,
      clientSecret: mock.clientSecret,
      credentialSource: 'the embedded mock',
      profile: mock.profile,
      embedded: mock,
    };
  }
  if (!isLoopbackUrl(t.baseUrl)) {
    throw new GuardRefusal([`target.baseUrl ${t.baseUrl} is not loopback, but target.environment is mock: a mock runs on 127.0.0.1, ::1 or localhost`]);
  }
  if (options.mockProfile !== undefined) throw new UsageError('--mock-profile applies to the embedded mock only; this scenario names an external mock (target.baseUrl)');
  const info = await mockInfo(t.baseUrl);
  if (info.timeScale !== options.timeScale) {
    throw new UsageError(`--time-scale ${options.timeScale} does not match the mock at ${t.baseUrl}, which runs at time scale ${info.timeScale}`, `start the mock with --time-scale ${options.timeScale}, or run with --time-scale ${info.timeScale}`);
  }
  const idVar = t.credentials.clientIdEnv;
  const secretVar = t.credentials.clientSecretEnv;
  const fromEnv = options.env[idVar] !== undefined && options.env[secretVar] !== undefined;
  return {
    environment: 'mock',
    baseUrl: t.baseUrl,
    audience: t.audience ?? t.baseUrl,
    clientId: options.env[idVar] ?? MOCK_DEFAULTS.clientId,
    clientSecret: options.env[secretVar] ?? MOCK_DEFAULTS.clientSecret,
    credentialSource: fromEnv ? `$${idVar} / $${secretVar}` : "the mock's default credentials",
    profile: info.profile,
    embedded: undefined,
  };
}

async function mockInfo(baseUrl: string): Promise<{ timeScale: number; profile: string | null }> {
  try {
    const res = await request(baseUrl.replace(/\/+$/, '') + STATS_PATH, { signal: AbortSignal.timeout(5000) });
    const body = (await res.body.json()) as { timeScale?: unknown; profile?: unknown };
    if (typeof body.timeScale !== 'number') throw new Error('no timeScale in its stats');
    return { timeScale: body.timeScale, profile: typeof body.profile === 'string' ? body.profile : null };
  } catch (error) {
    throw new RunFailure('TARGET_UNREACHABLE', `cannot read the mock's stats at ${baseUrl}${STATS_PATH}: ${(error as Error).message}`, 'is `loadproof mock` running there?');
  }
}
