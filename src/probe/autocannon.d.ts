/** The part of autocannon 8 (CommonJS, no types of its own) the probe uses. */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface Options {
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
    setupClient?: (client: AutocannonClient) => void;
    requests?: {
      onResponse?: (status: number, body: string, context: unknown, headers: Record<string, string | string[]>) => void;
    }[];
  }

  /** http-parser-js's parser, as autocannon's client holds it: handlers by number. */
  interface ResponseParser {
    [handler: number]: (...args: never[]) => unknown;
    readonly constructor: {
      new (type: number): ResponseParser;
      readonly RESPONSE: number;
      readonly kOnHeaders: number;
      readonly kOnHeadersComplete: number;
      readonly kOnBody: number;
      readonly kOnMessageComplete: number;
    };
  }

  /** One connection's client (src/probe/answer-cap.ts uses its parser and _resetConnection, autocannon 8's own). */
  export interface AutocannonClient {
    on(event: 'request' | 'response' | 'timeout' | 'connError', listener: () => void): void;
    on(event: 'headers', listener: (info: { headers: string[] }) => void): void;
    on(event: 'body', listener: (piece: Buffer) => void): void;
    parser: ResponseParser;
    _resetConnection(): void;
  }

  export interface Result {
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
