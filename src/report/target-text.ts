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

/** Who a finding is against: the service when the run reached it (a tunnel included), else the mock it ran against. */
export const findingTarget = (summary: Summary): string =>
  summary.target.kind === 'real' ? 'the service' : 'the mock';

/**
 * The judge's reasons and notes, in the words of what the target was: the judge speaks of "the service", but a run
 * against a mock says nothing of it, so what it found is against the mock, as the report's header says.
 */
export const inTargetWords = (summary: Summary, text: string): string =>
  summary.target.kind === 'real' ? text : text.replaceAll('against the service', `against ${findingTarget(summary)}`);
