/**
 * Debian's haproxy as a gateway in front of loadproof's mock: in the foreground (-db), its config from
 * test/gateways/configs with the ports filled in, its log on its stdout (`log stdout format raw`).
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type Daemon, fillTemplate, freePorts, startDaemon } from './daemon.js';
import { CONFIGS } from './nginx.js';

export const HAPROXY = process.env.LOADPROOF_HAPROXY ?? '/usr/sbin/haproxy';
export const hasHaproxy = existsSync(HAPROXY);
/** A describe() title that says, where haproxy is absent, that its tests were skipped and why. */
export const haproxyTitle = (title: string): string =>
  hasHaproxy ? title : `${title} (skipped: ${HAPROXY} not installed; .ci/run installs haproxy)`;

export interface Haproxy {
  readonly ports: Readonly<Record<string, number>>;
  readonly daemon: Daemon;
}

/** Starts haproxy with `configs/<file>`, its `{{PORT_<name>}}` on free loopback ports (new ones if one was taken). */
export async function startHaproxy(
  file: string,
  portNames: readonly string[],
  values: Readonly<Record<string, string | number>>,
): Promise<Haproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'loadproof-haproxy-'));
  const template = readFileSync(join(CONFIGS, file), 'utf8');
  for (let attempt = 1; ; attempt++) {
    const picked = await freePorts(portNames.length);
    const ports = Object.fromEntries(portNames.map((name, i) => [name, picked[i]!]));
    const portValues = Object.fromEntries(portNames.map((name, i) => [`PORT_${name}`, picked[i]!]));
    writeFileSync(join(dir, 'haproxy.cfg'), fillTemplate(template, { ...values, ...portValues }));
    try {
      const daemon = await startDaemon({
        command: HAPROXY,
        args: ['-f', join(dir, 'haproxy.cfg'), '-db'],
        ports: picked,
        stopSignal: 'SIGUSR1',
      });
      return { ports, daemon };
    } catch (error) {
      if (attempt === 3 || !String(error).includes('Address already in use')) throw error;
    }
  }
}
