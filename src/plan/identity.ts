/**
 * A plan's identity: a SHA-256 over everything that decides what is sent and how it is judged —
 * each phase's name, timing, rates and warm-up, and every arrival offset to the bit — plus the time
 * scale. A run folder stores it, so `loadproof report` can tell that the plan it rebuilds from the
 * scenario copy is the one that ran (another loadproof version could plan the same file otherwise).
 */
import { createHash } from 'node:crypto';

import type { Plan } from './build-plan.js';

export function planIdentity(plan: Plan): string {
  const hash = createHash('sha256');
  hash.update(
    JSON.stringify({
      timeScale: plan.timeScale,
      phases: plan.phases.map((p) => [
        p.name,
        p.startMs,
        p.durationMs,
        p.fromRpm,
        p.toRpm,
        p.warmupMs,
        p.arrivalsMs.length,
      ]),
    }),
  );
  for (const p of plan.phases)
    hash.update(new Uint8Array(p.arrivalsMs.buffer, p.arrivalsMs.byteOffset, p.arrivalsMs.byteLength));
  return `sha256:${hash.digest('hex')}`;
}
