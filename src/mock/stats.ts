/**
 * What the mock saw, for reconciliation with what a client counted: requests received and
 * answered per endpoint and status, resets, and faults injected. For each endpoint:
 *   received = Σ byStatus + resets + clientGone + (requests still in progress)
 */

export const STAT_ENDPOINTS = ['token', 'session', 'identification', 'obfuscation', 'other'] as const;
export type StatEndpoint = (typeof STAT_ENDPOINTS)[number];

export interface EndpointCounts {
  /** Requests whose headers arrived. */
  received: number;
  /** Responses sent, by HTTP status code. */
  byStatus: Record<string, number>;
  /** Connections destroyed instead of answered (the `flaky` profile's resets). */
  resets: number;
  /** Requests whose client closed the connection before the answer was sent. */
  clientGone: number;
}

export interface FaultCounts {
  reset: number;
  http500: number;
  malformed: number;
  slow: number;
}

export class MockCounters {
  readonly endpoints: Record<StatEndpoint, EndpointCounts>;
  readonly faults: FaultCounts = { reset: 0, http500: 0, malformed: 0, slow: 0 };

  constructor() {
    const empty = (): EndpointCounts => ({ received: 0, byStatus: {}, resets: 0, clientGone: 0 });
    this.endpoints = { token: empty(), session: empty(), identification: empty(), obfuscation: empty(), other: empty() };
  }

  received(endpoint: StatEndpoint): void {
    this.endpoints[endpoint].received++;
  }

  answered(endpoint: StatEndpoint, status: number): void {
    const counts = this.endpoints[endpoint];
    counts.byStatus[status] = (counts.byStatus[status] ?? 0) + 1;
  }

  gone(endpoint: StatEndpoint): void {
    this.endpoints[endpoint].clientGone++;
  }

  reset(endpoint: StatEndpoint): void {
    this.endpoints[endpoint].resets++;
  }
}

/** One pipeline request as the mock saw it (model ms since the server started). */
export interface LoggedRequest {
  readonly endpoint: 'identification' | 'obfuscation';
  readonly arrivedAtMs: number;
  readonly answeredAtMs: number;
  /** HTTP status, or null when the connection was reset or the client left. */
  readonly status: number | null;
  readonly retryAfterS: number | null;
  /** The client's x-loadproof-seq / x-loadproof-attempt headers, when sent. */
  readonly seq: number | null;
  readonly attempt: number | null;
}

/**
 * The last `capacity` pipeline requests, oldest first: enough to check a client against the server.
 * A ring buffer, so adding stays O(1) on the request path once it is full.
 */
export class RequestLog {
  private readonly ring: LoggedRequest[] = [];
  private next = 0;
  private added = 0;

  constructor(private readonly capacity = 10_000) {}

  add(entry: LoggedRequest): void {
    this.ring[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
    this.added++;
  }

  snapshot(): { readonly entries: readonly LoggedRequest[]; readonly droppedOldest: number } {
    const full = this.added > this.capacity;
    const entries = full ? [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)] : [...this.ring];
    return { entries, droppedOldest: Math.max(0, this.added - this.capacity) };
  }
}
