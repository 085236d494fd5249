/** loadproof's mock as the gateways' upstream: `loadproof mock` in a child process on a free loopback port. */
import { startCli } from '../../helpers/cli.js';

export interface Upstream {
  readonly url: string;
  readonly port: number;
  /** The audience its token endpoint accepts: its own base URL, not the gateway's. */
  readonly audience: string;
  readonly timeScale: number;
  stop(): Promise<void>;
}

/** Starts `loadproof mock --time-scale k` with `args`; it lives `limitMs` at most (a bound on a hung test). */
export async function startUpstream(timeScale: number, args: readonly string[], limitMs: number): Promise<Upstream> {
  const mock = startCli(['mock', '--port', '0', '--json', '--time-scale', String(timeScale), ...args], {}, limitMs);
  const stop = async (): Promise<void> => {
    mock.child.kill('SIGTERM');
    await mock.exited;
  };
  try {
    const { url, audience } = JSON.parse(await mock.firstLine) as { url: string; audience: string };
    return { url, audience, port: Number(new URL(url).port), timeScale, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
