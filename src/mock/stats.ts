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
    this.endpoints = {
      token: empty(),
      session: empty(),
      identification: empty(),
      obfuscation: empty(),
      other: empty(),
    };
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

const LOGGED_ENDPOINTS = ['identification', 'obfuscation'] as const;

/**
 * The last `capacity` pipeline requests, oldest first: enough to check a client against the server.
 * A ring of preallocated typed arrays (about 43 bytes an entry: 430 kB at the default 10,000), not
 * of objects: an object per request would live long enough to reach V8's old generation, and
 * replacing it at every request would leave old-generation garbage that grows the heap between
 * full collections. null is stored as NaN (status: 0, never an HTTP status).
 */
export class RequestLog {
  private readonly endpoint: Uint8Array;
  private readonly arrivedAtMs: Float64Array;
  private readonly answeredAtMs: Float64Array;
  private readonly status: Uint16Array;
  private readonly retryAfterS: Float64Array;
  private readonly seq: Float64Array;
  private readonly attempt: Float64Array;
  private next = 0;
  private added = 0;

  constructor(private readonly capacity = 10_000) {
    this.endpoint = new Uint8Array(capacity);
    this.arrivedAtMs = new Float64Array(capacity);
    this.answeredAtMs = new Float64Array(capacity);
    this.status = new Uint16Array(capacity);
    this.retryAfterS = new Float64Array(capacity);
    this.seq = new Float64Array(capacity);
    this.attempt = new Float64Array(capacity);
  }

  add(entry: LoggedRequest): void {
    const i = this.next;
    this.endpoint[i] = entry.endpoint === 'identification' ? 0 : 1;
    this.arrivedAtMs[i] = entry.arrivedAtMs;
    this.answeredAtMs[i] = entry.answeredAtMs;
    this.status[i] = entry.status ?? 0;
    this.retryAfterS[i] = entry.retryAfterS ?? Number.NaN;
    this.seq[i] = entry.seq ?? Number.NaN;
    this.attempt[i] = entry.attempt ?? Number.NaN;
    this.next = (i + 1) % this.capacity;
    this.added++;
  }

  snapshot(): { readonly entries: readonly LoggedRequest[]; readonly droppedOldest: number } {
    const held = Math.min(this.added, this.capacity);
    const first = this.added > this.capacity ? this.next : 0;
    const orNull = (n: number): number | null => (Number.isNaN(n) ? null : n);
    const entries: LoggedRequest[] = [];
    for (let k = 0; k < held; k++) {
      const i = (first + k) % this.capacity;
      entries.push({
        endpoint: LOGGED_ENDPOINTS[this.endpoint[i]!]!,
        arrivedAtMs: this.arrivedAtMs[i]!,
        answeredAtMs: this.answeredAtMs[i]!,
        status: this.status[i] === 0 ? null : this.status[i]!,
        retryAfterS: orNull(this.retryAfterS[i]!),
        seq: orNull(this.seq[i]!),
        attempt: orNull(this.attempt[i]!),
      });
    }
    return { entries, droppedOldest: Math.max(0, this.added - this.capacity) };
  }
}
