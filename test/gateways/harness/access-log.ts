/**
 * The gateways' own records of what they answered, one line per request, read from where the test's run began:
 * nginx's access log (a file, `log_format loadproof` in configs/nginx-common-http.conf) and haproxy's log (its
 * stdout, `log-format` in configs/haproxy.cfg). Both carry the x-loadproof-seq and x-loadproof-attempt headers.
 */
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';

import { until } from '../../helpers/reconcile.js';

export interface GatewayLine {
  /** x-loadproof-seq and x-loadproof-attempt as the gateway received them; null when absent. */
  readonly seq: string | null;
  readonly attempt: string | null;
  readonly status: number;
  readonly path: string;
  /** The whole time of the request in the gateway (nginx $request_time, haproxy %Ta), ms. */
  readonly totalMs: number;
  /** The client went away before its answer (nginx's 499, haproxy's termination state C…): no answer for it. */
  readonly clientGaveUp: boolean;
  /** Every field of the line, by the name the format gives it. */
  readonly fields: Readonly<Record<string, string>>;
}

const NGINX_FIELDS = [
  'seq',
  'attempt',
  'status',
  'requestTime',
  'upstreamResponseTime',
  'path',
  'serverPort',
  'connection',
  'connectionRequests',
  'transferEncoding',
  'retryAfter',
] as const;

const HAPROXY_FIELDS = [
  'seq',
  'attempt',
  'status',
  'totalMs',
  'queueMs',
  'serverMs',
  'path',
  'frontend',
  'termination',
];

function parse(
  line: string,
  names: readonly string[],
  totalMs: (f: Record<string, string>) => number,
  clientGaveUp: (f: Record<string, string>) => boolean,
): GatewayLine {
  const values = line.split('|');
  if (values.length !== names.length)
    throw new Error(`a log line of ${values.length} fields, not ${names.length}: ${line}`);
  const fields = Object.fromEntries(names.map((name, i) => [name, values[i]!]));
  const header = (value: string): string | null => (value === '-' || value === '' ? null : value);
  return {
    seq: header(fields.seq!),
    attempt: header(fields.attempt!),
    status: Number(fields.status),
    path: fields.path!,
    totalMs: totalMs(fields),
    clientGaveUp: clientGaveUp(fields),
    fields,
  };
}

export const parseNginxLine = (line: string): GatewayLine =>
  parse(
    line,
    NGINX_FIELDS,
    (f) => Math.round(Number(f.requestTime) * 1000),
    (f) => f.status === '499',
  );

export const parseHaproxyLine = (line: string): GatewayLine =>
  parse(
    line,
    HAPROXY_FIELDS,
    (f) => Number(f.totalMs),
    (f) => f.termination!.startsWith('C'),
  );

/** A gateway's log as it grows: `mark()` where a run begins, `linesSince(mark)` after it. */
export interface GatewayLog {
  mark(): number;
  /** The lines written since `mark`, once a marker request sent now through `markerUrl` is among them. */
  linesSince(mark: number, markerUrl: string): Promise<GatewayLine[]>;
}

/** nginx's access log file (`text()` reads it whole) or haproxy's stdout (`text()` is all it printed). */
export function gatewayLog(text: () => string, parseLine: (line: string) => GatewayLine): GatewayLog {
  let markers = 0;
  return {
    mark: () => text().length,
    async linesSince(mark, markerUrl) {
      // A gateway logs a request when it ends, some (a client that went away) a moment after loadproof has
      // exited: a request sent after them through the same process is logged after them.
      const marker = `marker-${++markers}`;
      await sendMarker(markerUrl, marker);
      const lines = (): GatewayLine[] =>
        text()
          .slice(mark)
          .split('\n')
          .filter((l) => l.includes('|'))
          .map(parseLine);
      await until(() => lines().some((l) => l.seq === marker), `the gateway's log line of ${marker}`, 20_000);
      return lines().filter((l) => l.seq === null || !l.seq.startsWith('marker-'));
    },
  };
}

export const fileText = (file: string) => (): string => (existsSync(file) ? readFileSync(file, 'utf8') : '');

function sendMarker(url: string, marker: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/__gateway-test-marker`, { headers: { 'x-loadproof-seq': marker } }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end();
  });
}
