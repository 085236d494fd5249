/** What GET /__mock/stats answers: the server's counts, its gateways' and fleets' state, its memory and connections. */
import type { Clock } from '../core/index.js';
import type { ProfileName } from '../spec/index.js';
import type { TokenStore } from './auth.js';
import type { BodyBudget, BufferedSnapshot } from './body-budget.js';
import type { Fleet, FleetSnapshot } from './fleet.js';
import type { Gateway, GatewayLimits, GatewaySnapshot } from './gateway.js';
import type { MockProfile } from './profiles.js';
import type { EndpointCounts, FaultCounts, MockCounters, StatEndpoint } from './stats.js';

export interface EndpointStats {
  readonly gateway: GatewaySnapshot;
  readonly fleet: FleetSnapshot;
  readonly limits: GatewayLimits;
  readonly http429: number;
  readonly http504: number;
}

/** The answer of GET /__mock/stats. */
export interface MockStats {
  readonly profile: ProfileName;
  readonly timeScale: number;
  readonly seed: number;
  readonly startedAt: string;
  /** Model seconds since the server started. */
  readonly uptimeS: number;
  readonly requests: Readonly<Record<StatEndpoint, EndpointCounts>>;
  readonly identification: EndpointStats;
  readonly obfuscation: EndpointStats;
  readonly faults: FaultCounts;
  readonly memory: { readonly rssBytes: number; readonly heapUsedBytes: number };
  readonly connections: ConnectionStats;
  readonly buffered: BufferedSnapshot;
  /** Access tokens held (live, or expired less than a lifetime ago) and live ones evicted at the cap. */
  readonly tokens: { readonly held: number; readonly evicted: number };
}

/** Connections of the server since it started. */
export interface ConnectionStats {
  /** Connections open now. */
  readonly open: number;
  /** Connections accepted since the start. */
  readonly accepted: number;
  /** Connections closed on arrival because `max` were open. */
  readonly refused: number;
  /** The cap on connections open at once. */
  readonly max: number;
}

/** One modelled endpoint: its front door and the replicas behind it. */
export interface MockEndpoint {
  readonly gateway: Gateway;
  readonly fleet: Fleet;
}

/** What the stats are read from. */
interface StatsSources {
  readonly profile: MockProfile;
  readonly timeScale: number;
  readonly seed: number;
  readonly startedAt: string;
  readonly clock: Clock;
  readonly counters: MockCounters;
  readonly identification: MockEndpoint;
  readonly obfuscation: MockEndpoint;
  /** Counted by the server's connection policy; `max` is its cap. */
  readonly connections: ConnectionStats;
  readonly bodyBudget: BodyBudget;
  readonly tokens: TokenStore;
}

/** The stats as they are now. */
export function readStats(s: StatsSources): MockStats {
  const memory = process.memoryUsage();
  return {
    profile: s.profile.name,
    timeScale: s.timeScale,
    seed: s.seed,
    startedAt: s.startedAt,
    uptimeS: s.clock.nowMs() / 1000,
    requests: structuredClone(s.counters.endpoints),
    identification: endpointStats(s.identification, s.profile.identification.limits, s.counters, 'identification'),
    obfuscation: endpointStats(s.obfuscation, s.profile.obfuscation.limits, s.counters, 'obfuscation'),
    faults: { ...s.counters.faults },
    memory: { rssBytes: memory.rss, heapUsedBytes: memory.heapUsed },
    connections: { ...s.connections },
    buffered: s.bodyBudget.snapshot(),
    tokens: { held: s.tokens.size, evicted: s.tokens.evicted },
  };
}

function endpointStats(
  e: MockEndpoint,
  limits: GatewayLimits,
  counters: MockCounters,
  name: StatEndpoint,
): EndpointStats {
  return {
    gateway: e.gateway.snapshot(),
    fleet: e.fleet.snapshot(),
    limits,
    http429: counters.endpoints[name].byStatus['429'] ?? 0,
    http504: counters.endpoints[name].byStatus['504'] ?? 0,
  };
}
