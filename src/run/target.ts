/**
 * Where a run sends its traffic and with which credentials, once the guard has allowed it. A mock
 * scenario without a baseUrl starts the embedded mock (on a free loopback port, at the run's time
 * scale); a loopback mock must run at the same time scale. Credentials come from --credentials or
 * the variables the scenario names; a mock falls back to its default ones, a real environment
 * has none to fall back to.
 */
import { request } from 'undici';
import { RunFailure, UsageError } from '../core/errors.js';
import { readCredentials } from '../credentials/index.js';
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
  /** Things to tell the user before the run (e.g. a credentials file others can read). */
  readonly warnings: readonly string[];
}

export interface TargetOptions {
  readonly timeScale: number;
  /** --mock-profile: overrides the scenario's profile for an embedded mock. */
  readonly mockProfile: ProfileName | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** --credentials <file>. */
  readonly credentialsFile: string | undefined;
}

export async function resolveTarget(scenario: Scenario, options: TargetOptions): Promise<ResolvedTarget> {
  const t = scenario.target;
  const { clientIdEnv: idVar, clientSecretEnv: secretVar } = t.credentials;
  const { credentials, warnings } = await readCredentials({ file: options.credentialsFile, env: options.env, idVar, secretVar });
  if (options.mockProfile !== undefined && (t.environment !== 'mock' || t.baseUrl !== undefined)) {
    throw new UsageError('--mock-profile applies to the embedded mock only; this scenario names a target.baseUrl');
  }
  if (t.environment !== 'mock') {
    if (credentials === undefined) {
      throw new UsageError(`no credentials for the ${t.environment} target: set $${idVar} and $${secretVar} (names from target.credentials), or pass --credentials <file>`, 'nothing was sent');
    }
    const baseUrl = t.baseUrl!;
    return { environment: t.environment, baseUrl, audience: t.audience ?? baseUrl, ...fromCredentials(credentials), profile: null, embedded: undefined, warnings };
  }
  if (t.baseUrl === undefined) {
    // The embedded mock accepts the credentials given, so they travel the same path as against a real service.
    const mock = await startMockServer({
      profile: options.mockProfile ?? t.profile ?? MOCK_DEFAULTS.profile,
      timeScale: options.timeScale,
      port: 0,
      ...(credentials === undefined ? {} : { clientId: credentials.clientId, clientSecret: credentials.clientSecret }),
    });
    const own = { clientId: mock.clientId, clientSecret: mock.clientSecret, credentialSource: 'the embedded mock' };
    return { environment: 'mock', baseUrl: mock.url, audience: mock.audience, ...(credentials === undefined ? own : fromCredentials(credentials)), profile: mock.profile, embedded: mock, warnings };
  }
  const info = await mockInfo(t.baseUrl);
  if (info.timeScale !== options.timeScale) {
    throw new UsageError(`--time-scale ${options.timeScale} does not match the mock at ${t.baseUrl}, which runs at time scale ${info.timeScale}`, `start the mock with --time-scale ${options.timeScale}, or run with --time-scale ${info.timeScale}`);
  }
  const defaults = { clientId: MOCK_DEFAULTS.clientId, clientSecret: MOCK_DEFAULTS.clientSecret, credentialSource: "the mock's default credentials" };
  return {
    environment: 'mock',
    baseUrl: t.baseUrl,
    audience: t.audience ?? t.baseUrl,
    ...(credentials === undefined ? defaults : fromCredentials(credentials)),
    profile: info.profile,
    embedded: undefined,
    warnings,
  };
}

const fromCredentials = (c: { clientId: string; clientSecret: string; source: string }) => ({ clientId: c.clientId, clientSecret: c.clientSecret, credentialSource: c.source });

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
