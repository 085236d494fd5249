/**
 * A real HTTP proxy for the tests: Debian's tinyproxy, as an instance of this test's own (a config in a temp folder,
 * on a free loopback port, in the foreground), killed by `close()`, and with SIGKILL if the test process exits
 * without closing it (the gateways' harness starts and stops it, as it does nginx and haproxy). It allows CONNECT to
 * the one port given, and asks for credentials when `basicAuth` is set. Its log (LogLevel Connect) names every
 * CONNECT it was asked for.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { freePorts, startDaemon } from '../gateways/harness/daemon.js';

export const TINYPROXY = '/usr/bin/tinyproxy';
export const HAVE_TINYPROXY = existsSync(TINYPROXY);

export interface Tinyproxy {
  readonly port: number;
  /** Its process id. */
  readonly pid: number;
  /** The CONNECT requests in its log so far ("host:port"). */
  connects(): string[];
  close(): Promise<void>;
}

export async function startTinyproxy(options: {
  connectPort: number;
  basicAuth?: { user: string; password: string };
}): Promise<Tinyproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'loadproof-tinyproxy-'));
  const log = join(dir, 'tinyproxy.log');
  // tinyproxy cannot listen on port 0 and say which it got: a port free now is given to it.
  const [port] = (await freePorts(1)) as [number];
  const auth =
    options.basicAuth === undefined ? '' : `BasicAuth ${options.basicAuth.user} ${options.basicAuth.password}\n`;
  writeFileSync(
    join(dir, 'tinyproxy.conf'),
    `Port ${port}\nListen 127.0.0.1\nTimeout 30\nAllow 127.0.0.1\nConnectPort ${options.connectPort}\nMaxClients 50\nLogFile "${log}"\nLogLevel Connect\n${auth}`,
  );
  const daemon = await startDaemon({
    command: TINYPROXY,
    args: ['-d', '-c', join(dir, 'tinyproxy.conf')],
    ports: [port],
    stopSignal: 'SIGTERM',
  });
  return {
    port,
    pid: daemon.child.pid!,
    connects: () =>
      existsSync(log)
        ? [...readFileSync(log, 'utf8').matchAll(/Request \(file descriptor \d+\): CONNECT (\S+) HTTP/g)].map(
            (m) => m[1]!,
          )
        : [],
    close: () => daemon.stop(),
  };
}
