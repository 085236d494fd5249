/** What the client of one endpoint is set up with: where it sends, its token, clock, deadline and retry policy. */
import type { Clock, Rng } from '../core/index.js';
import type { ConnectionPool } from './http1/pool.js';
import type { RetryPolicy } from './retry.js';
import type { TokenProvider } from './token.js';

/** What a request needs of the token provider. */
export type TokenSource = Pick<TokenProvider, 'current' | 'get' | 'accepted' | 'rejected'>;

export interface ApiClientSettings {
  readonly baseUrl: string;
  /** The connections to baseUrl's origin the attempts are sent on (our HTTP/1.1 client). */
  readonly pool: ConnectionPool;
  readonly tokens: TokenSource;
  /** The run's model clock. */
  readonly clock: Clock;
  /** k: wall time = model time ÷ k. */
  readonly timeScale: number;
  /** Client deadline per attempt, model ms. */
  readonly timeoutMs: number;
  /**
   * Read each answer's time in the mock's modelled service (Server-Timing svc): time-scaled runs against a mock only.
   */
  readonly readServerTiming?: boolean;
  readonly on429: { readonly policy: 'record' | 'retry' } & RetryPolicy;
  /** Jitter of the back-off. */
  readonly rng: Rng;
  /** Aborted when the run stops: no new attempt starts, and a wait before a retry ends at once. */
  readonly stop?: AbortSignal;
  /** Aborted when the run's drain ends: attempts still waiting for an answer are cancelled (`abandoned`). */
  readonly cancel?: AbortSignal;
  /**
   * Keep the entities of a 2xx answer (`entities: [{type, start, end}]`) in the result: the deid chain obfuscates them.
   */
  readonly keepEntities?: boolean;
  /** Keep a 2xx obfuscation answer's output (`text`, `replacements`) in the result: a deid run reads its recall. */
  readonly keepOutput?: boolean;
  /**
   * Told of each redirect answered ("307 to https://…", its Location sanitized): never followed, counted as the
   * status it is, and said.
   */
  readonly onRedirect?: (what: string) => void;
  /**
   * Told of each tunnel the proxy would not make (its words, naming the proxy). `routeFault`: the proxy itself refused
   * it (its own status, or an answer that is not one); the request never left, so it is not an attempt. Otherwise the
   * proxy could not reach the target (502, 503, 504), counted as the target's failure.
   */
  readonly onProxyFailure?: (what: string, routeFault: boolean) => void;
}
