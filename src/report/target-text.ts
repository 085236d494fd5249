import type { Summary } from '../judge/index.js';

/** Where the traffic went, in words. */
export function targetText(summary: Summary): string {
  const t = summary.target;
  switch (t.kind) {
    case 'embedded-mock':
      return `${summary.environment} (embedded mock, profile ${t.profile})`;
    case 'loadproof-mock':
      return `${summary.environment} ${t.baseUrl} (loadproof mock, profile ${t.profile ?? 'unknown'})`;
    case 'loopback-stub':
      return `${summary.environment} ${t.baseUrl} (a loopback server that is not loadproof's mock: real time, profile unknown)`;
    case 'real':
      return `${summary.environment} ${t.baseUrl}`;
    default: {
      const unreachable: never = t.kind;
      throw new Error(`unknown target kind ${String(unreachable)}`);
    }
  }
}
