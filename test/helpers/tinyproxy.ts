/**
 * A real HTTP proxy for the tests: Debian's tinyproxy, as an instance of this test's own (a config in a temp folder,
 * on a free loopback port, in the foreground), killed by `close()`. It allows CONNECT to the one port given, and asks
 * for credentials when `basicAuth` is set. Its log (LogLevel Connect) names every CONNECT it was asked for.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const TINYPROXY = '/usr/bin/tinyproxy';
export const HAVE_TINYPROXY = existsSync(TINYPROXY);

export interface Tinyproxy {
  readonly port: number;
  /** The CONNECT requests in its log so far ("host:port"). */
  connects(): string[];
  close(): Promise<void>;
}

/** A port free now on 127.0.0.1 (tinyproxy cannot listen on port 0 and say which it got). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves once something accepts connections on `port`; bounded (a safety bound, not a speed check). */
async function listening(port: number, child: ChildProcess, limitMs = 20_000): Promise<void> {
  const until = Date.now() + limitMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`tinyproxy exited (${child.exitCode}) before listening`);
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(true)).once('error', () => resolve(false));
      socket.once('close', () => socket.destroy());
      setTimeout(() => socket.destroy(), 1000);
      socket.once('connect', () => socket.end());
    });
    if (up) return;
    if (Date.now() > until) throw new Error(`tinyproxy did not listen on ${port} within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function startTinyproxy(options: {
  connectPort: number;
  basicAuth?: { user: string; password: string };
}): Promise<Tinyproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'loadproof-tinyproxy-'));
  const log = join(dir, 'tinyproxy.log');
  const port = await freePort();
  const auth =
    options.basicAuth === undefined ? '' : `BasicAuth ${options.basicAuth.user} ${options.basicAuth.password}\n`;
  writeFileSync(
    join(dir, 'tinyproxy.conf'),
    `Port ${port}\nListen 127.0.0.1\nTimeout 30\nAllow 127.0.0.1\nConnectPort ${options.connectPort}\nMaxClients 50\nLogFile "${log}"\nLogLevel Connect\n${auth}`,
  );
  const child = spawn(TINYPROXY, ['-d', '-c', join(dir, 'tinyproxy.conf')], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await listening(port, child);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    port,
    connects: () =>
      existsSync(log)
        ? [...readFileSync(log, 'utf8').matchAll(/Request \(file descriptor \d+\): CONNECT (\S+) HTTP/g)].map(
            (m) => m[1]!,
          )
        : [],
    close: async () => {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    },
  };
}
