/**
 * Debian's nginx as a gateway in front of loadproof's mock: one process (no master, so nothing outlives a
 * SIGKILL and no worker changes user, as root or not), its config from test/gateways/configs with the ports
 * filled in, every file it writes (logs, temp) in a temporary prefix.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { type Daemon, fillTemplate, freePorts, startDaemon } from './daemon.js';

export const NGINX = process.env.LOADPROOF_NGINX ?? '/usr/sbin/nginx';
export const hasNginx = existsSync(NGINX);
/** A describe() title that says, where nginx is absent, that its tests were skipped and why. */
export const nginxTitle = (title: string): string =>
  hasNginx ? title : `${title} (skipped: ${NGINX} not installed; .ci/run installs nginx-light)`;

export const CONFIGS = fileURLToPath(new URL('../configs/', import.meta.url));

export interface Nginx {
  readonly dir: string;
  /** The ports of the config's {{PORT_*}} names, by name. */
  readonly ports: Readonly<Record<string, number>>;
  readonly accessLog: string;
  readonly daemon: Daemon;
}

/**
 * Starts nginx with `configs/<file>`, its `{{PORT_<name>}}` on free loopback ports and the other values given.
 * A port taken by another process between our pick and nginx's bind fails the start: tried again with new ports.
 */
export async function startNginx(
  file: string,
  portNames: readonly string[],
  values: Readonly<Record<string, string | number>>,
): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), 'loadproof-nginx-'));
  mkdirSync(join(dir, 'tmp'));
  writeFileSync(join(dir, 'common-http.conf'), readFileSync(join(CONFIGS, 'nginx-common-http.conf')));
  const template = readFileSync(join(CONFIGS, file), 'utf8');
  for (let attempt = 1; ; attempt++) {
    const picked = await freePorts(portNames.length);
    const ports = Object.fromEntries(portNames.map((name, i) => [name, picked[i]!]));
    const portValues = Object.fromEntries(portNames.map((name, i) => [`PORT_${name}`, picked[i]!]));
    writeFileSync(join(dir, 'nginx.conf'), fillTemplate(template, { ...values, ...portValues, DIR: dir }));
    try {
      const daemon = await startDaemon({
        command: NGINX,
        args: ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', `daemon off; pid ${join(dir, 'nginx.pid')};`],
        ports: picked,
        stopSignal: 'SIGQUIT',
      });
      return { dir, ports, accessLog: join(dir, 'access.log'), daemon };
    } catch (error) {
      if (attempt === 3 || !String(error).includes('Address already in use')) throw error;
    }
  }
}
