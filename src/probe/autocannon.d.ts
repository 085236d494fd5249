/** The part of autocannon 8 (CommonJS, no types of its own) the probe uses. */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    /** Requests per second over all connections. */
    overallRate?: number;
    /** Seconds. */
    timeout?: number;
    /** The most responses in all (distributed over the connections). */
    maxOverallRequests?: number;
    /** Milliseconds between samples; the stop flag is looked at on each. */
    sampleInt?: number;
    setupClient?: (client: { on(event: 'request' | 'response' | 'timeout' | 'connError', listener: () => void): void }) => void;
    requests?: { onResponse?: (status: number, body: string, context: unknown, headers: Record<string, string | string[]>) => void }[];
  }

  interface Result {
    /** Seconds of wall time the run lasted. */
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }

  interface Instance extends EventEmitter {
    stop(): void;
  }

  function autocannon(options: Options, done: (error: Error | null, result: Result) => void): Instance;
  export default autocannon;
}
