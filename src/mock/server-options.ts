/** The options of startMockServer, checked once and resolved against the defaults and the profile. */
import { type Clock, TimeScale, UsageError } from '../core/index.js';
import { IDENTIFICATION_LIMITS, type ProfileName } from '../spec/index.js';
import { MOCK_DEFAULTS } from './defaults.js';
import { type EndpointProfile, type FaultRates, type MockProfile, PROFILES } from './profiles.js';

/** Overrides of identification's limits (spec defaults, or the profile's). */
export interface LimitOverrides {
  readonly sustainedRpm?: number;
  readonly burstRpm?: number;
  readonly burstMinutes?: number;
  readonly maxInFlight?: number;
  readonly queueLimit?: number;
  readonly timeoutS?: number;
}

export interface MockServerOptions {
  /** Interface to bind; loopback by default. */
  readonly host?: string;
  /** Port; 0 (default) picks a free one. */
  readonly port?: number;
  readonly profile?: ProfileName;
  /** k, from 1 to 1000: the mock's clock runs k times fast (limits × k, times ÷ k on the wall). */
  readonly timeScale?: number;
  /** At k > 1, how far (wall ms) the model runs behind the real clock (ModelClock); MODEL_LAG_WALL_MS by default. */
  readonly modelLagWallMs?: number;
  /** Seed of the latency model and fault draws. */
  readonly seed?: number;
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** Access-token lifetime, model seconds. */
  readonly tokenTtlS?: number;
  /** The audience the token endpoint accepts; the server's base URL by default. */
  readonly audience?: string;
  readonly limits?: LimitOverrides;
  /** The same for the obfuscation endpoint (its own, higher limits by default). */
  readonly obfuscationLimits?: LimitOverrides;
  readonly faults?: Partial<FaultRates>;
  /** For tests: a ManualClock instead of the real, scaled one (timeScale is then only reported). */
  readonly clock?: Clock;
  /** Most connections open at once; further ones are closed as they arrive. */
  readonly maxConnections?: number;
  /** Most bytes of request bodies held at once across all requests (bytes); beyond it, 503. */
  readonly bodyBudgetBytes?: number;
  /** Wall-clock ms a client has to send a request's headers before 408 and close. */
  readonly headersTimeoutMs?: number;
  /** Wall-clock ms a client has to send a whole request (headers and body) before 408 and close. */
  readonly requestTimeoutMs?: number;
  /** Answer 429s without Retry-After, as a gateway that does not meet the spec does (nginx limit_req by default). */
  readonly omitRetryAfter?: boolean;
}

/** The options checked, with the defaults and the profile's overrides applied. */
export interface MockConfig {
  readonly profile: MockProfile;
  readonly timeScale: TimeScale;
  readonly seed: number;
  readonly host: string;
  readonly port: number;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly tokenTtlS: number;
  readonly maxConnections: number;
  readonly bodyBudgetBytes: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly omitRetryAfter: boolean;
}

/** The options checked (a UsageError naming the first one wrong) and resolved. */
export function resolveConfig(options: MockServerOptions): MockConfig {
  const profile = resolveProfile(options);
  const timeScale = TimeScale.of(options.timeScale ?? MOCK_DEFAULTS.timeScale, 'timeScale');
  positive('tokenTtlS', options.tokenTtlS);
  const maxConnections = options.maxConnections ?? MOCK_DEFAULTS.maxConnections;
  const bodyBudgetBytes = options.bodyBudgetBytes ?? MOCK_DEFAULTS.bodyBudgetBytes;
  const headersTimeoutMs = options.headersTimeoutMs ?? MOCK_DEFAULTS.headersTimeoutMs;
  const requestTimeoutMs = options.requestTimeoutMs ?? MOCK_DEFAULTS.requestTimeoutMs;
  for (const [name, value] of Object.entries({ maxConnections, bodyBudgetBytes, headersTimeoutMs, requestTimeoutMs })) {
    if (!Number.isInteger(value) || value <= 0) throw new UsageError(`${name}: expected an integer > 0, got ${value}`);
  }
  if (headersTimeoutMs > requestTimeoutMs)
    throw new UsageError(
      `headersTimeoutMs: expected ≤ requestTimeoutMs (${requestTimeoutMs}), got ${headersTimeoutMs}`,
    );
  const port = options.port ?? MOCK_DEFAULTS.port;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`port: expected an integer from 0 to 65535, got ${port}`);
  return {
    profile,
    timeScale,
    seed: options.seed ?? MOCK_DEFAULTS.seed,
    host: options.host ?? MOCK_DEFAULTS.host,
    port,
    clientId: options.clientId ?? MOCK_DEFAULTS.clientId,
    clientSecret: options.clientSecret ?? MOCK_DEFAULTS.clientSecret,
    tokenTtlS: options.tokenTtlS ?? MOCK_DEFAULTS.tokenTtlS,
    maxConnections,
    bodyBudgetBytes,
    headersTimeoutMs,
    requestTimeoutMs,
    omitRetryAfter: options.omitRetryAfter === true,
  };
}

function positive(name: string, value: number | undefined, allowZero = false): void {
  if (value === undefined) return;
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new UsageError(`${name}: expected a number ${allowZero ? '≥ 0' : '> 0'}, got ${value}`);
  }
}

/** The profile's identification endpoint with the overrides applied. */
function applyLimitOverrides(endpoint: EndpointProfile, o: LimitOverrides = {}): EndpointProfile {
  for (const [name, value] of Object.entries(o))
    positive(`limits.${name}`, value as number | undefined, name === 'queueLimit');
  const base = endpoint.limits;
  const baseRate = base.rate ?? {
    sustainedRpm: IDENTIFICATION_LIMITS.sustainedRpm,
    burstRpm: IDENTIFICATION_LIMITS.burstRpm,
    burstMinutes: IDENTIFICATION_LIMITS.burstMaxMinutes,
  };
  const rateTouched = o.sustainedRpm !== undefined || o.burstRpm !== undefined || o.burstMinutes !== undefined;
  const rate = rateTouched
    ? {
        sustainedRpm: o.sustainedRpm ?? baseRate.sustainedRpm,
        burstRpm: o.burstRpm ?? baseRate.burstRpm,
        burstMinutes: o.burstMinutes ?? baseRate.burstMinutes,
      }
    : base.rate;
  if (rate !== null && rate.burstRpm < rate.sustainedRpm) {
    throw new UsageError(`limits.burstRpm: expected ≥ sustainedRpm (${rate.sustainedRpm}), got ${rate.burstRpm}`);
  }
  return {
    ...endpoint,
    limits: {
      rate,
      maxInFlight: o.maxInFlight ?? base.maxInFlight,
      queueLimit: o.queueLimit ?? base.queueLimit,
      timeoutMs: o.timeoutS !== undefined ? o.timeoutS * 1000 : base.timeoutMs,
    },
  };
}

function resolveProfile(options: MockServerOptions): MockProfile {
  const name = options.profile ?? MOCK_DEFAULTS.profile;
  // Object.hasOwn: a name is user text and must never find Object.prototype's members.
  const profile = Object.hasOwn(PROFILES, name) ? PROFILES[name] : undefined;
  if (profile === undefined)
    throw new UsageError(`profile: expected one of ${Object.keys(PROFILES).join(', ')}, got "${String(name)}"`);
  for (const [key, value] of Object.entries(options.faults ?? {})) {
    positive(`faults.${key}`, value, true);
    if (key.endsWith('Rate') && value > 1)
      throw new UsageError(`faults.${key}: expected a probability from 0 to 1, got ${value}`);
  }
  return {
    ...profile,
    identification: applyLimitOverrides(profile.identification, options.limits),
    obfuscation: applyLimitOverrides(profile.obfuscation, options.obfuscationLimits),
    faults: { ...profile.faults, ...options.faults },
  };
}
