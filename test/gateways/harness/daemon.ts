/**
 * A server program nobody here wrote (nginx, haproxy) run as a child on loopback ports of our choosing: started,
 * awaited until every port accepts (bounded), and stopped in the test's afterAll, gracefully and then for good.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

/** Ports free on 127.0.0.1 now, found by letting the kernel pick (another process may take one before us: retried). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  const ports = await Promise.all(
    servers.map(
      (server) =>
        new Promise<number>((resolve, reject) => {
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
        }),
    ),
  );
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

export interface Daemon {
  readonly child: ChildProcess;
  /** Everything it printed on stdout and stderr so far (haproxy's log goes to its stdout). */
  output(): string;
  /** Stops it: `signal` (its graceful stop), then SIGKILL if it is still running after `graceMs`. */
  stop(): Promise<void>;
}

export interface DaemonOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly ports: readonly number[];
  readonly stopSignal: NodeJS.Signals;
}

/** A bound on a hung start, not a speed check: a busy 2-core machine took seconds to start a node child. */
const START_LIMIT_MS = 20_000;
const STOP_GRACE_MS = 3000;

export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const child = spawn(options.command, [...options.args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  const daemon: Daemon = {
    child,
    output: () => output,
    stop: async () => {
      if (gone) return;
      child.kill(options.stopSignal);
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    },
  };
  // A test process that dies without its afterAll must not leave a server behind.
  const onExit = (): void => void child.kill('SIGKILL');
  process.once('exit', onExit);
  void exited.then(() => process.removeListener('exit', onExit));
  const end = Date.now() + START_LIMIT_MS;
  for (const port of options.ports) {
    while (!(await accepts(port))) {
      if (gone || Date.now() > end) {
        await daemon.stop();
        throw new Error(`${options.command} did not listen on 127.0.0.1:${port}; it said:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  return daemon;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** `template` with every `{{NAME}}` replaced; a name left without a value is an error, not a silent blank. */
export function fillTemplate(template: string, values: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{\{([A-Z_0-9]+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`template: no value for {{${name}}}`);
    return String(value);
  });
}
