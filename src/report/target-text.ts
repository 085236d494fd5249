import type { Summary } from '../judge/index.js';

/** Where the traffic went, in words, with the proxy it went through (host:port), as the run's header names it. */
export function targetText(summary: Summary): string {
  const proxy = summary.target.proxy;
  return proxy === undefined ? targetOnly(summary) : `${targetOnly(summary)} through proxy ${proxy}`;
}

function targetOnly(summary: Summary): string {
  const t = summary.target;
  switch (t.kind) {
    case 'embedded-mock':
      return `${summary.environment} (embedded mock, profile ${t.profile})`;
    case 'loadproof-mock':
      return `${summary.environment} ${t.baseUrl} (loadproof mock, profile ${t.profile ?? 'unknown'})`;
    case 'loopback-stub':
      return `${summary.environment} ${t.baseUrl} (a loopback server that is not loadproof's mock: real time, profile unknown)`;
    case 'real':
      return t.tunnel === true
        ? `${summary.environment}, reached through a loopback tunnel at ${t.baseUrl}`
        : `${summary.environment} ${t.baseUrl}`;
    default: {
      const unreachable: never = t.kind;
      throw new Error(`unknown target kind ${String(unreachable)}`);
    }
  }
}

// Said by the judge, so that summary.json words it as the reports do.
export { findingTarget, inTargetWords } from '../judge/index.js';
