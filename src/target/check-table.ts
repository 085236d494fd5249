/**
 * How a preflight is shown: the calls announced before they are sent, then one line per call and the guard's decision.
 */
import { MAX_ATTEMPTS } from '../client/index.js';
import { formatTable } from '../core/index.js';
import { describeDecision } from '../guard/index.js';
import { STATS_PATH } from '../mock/index.js';
import { CHECK_CALLS, type CheckOutcome } from './check.js';
import type { ResolvedTarget } from './resolve.js';

/** What check sends, said before its calls: exactly that, a mock's stats request included. */
export function announceCheck(target: ResolvedTarget, timeScale = 1): string {
  const where =
    target.kind === 'embedded-mock'
      ? `the embedded mock at ${target.baseUrl}`
      : target.kind === 'real'
        ? target.tunnel
          ? `${target.environment}, reached through a loopback tunnel at ${target.baseUrl}`
          : `${target.environment} at ${target.baseUrl}`
        : `the mock at ${target.baseUrl}`;
  // resolveTarget asks a mock at a loopback URL (and only it) for its stats before any call.
  const asked =
    target.kind === 'loadproof-mock' || target.kind === 'loopback-stub'
      ? [
          `before them, one GET ${STATS_PATH} asked the server at ${target.baseUrl} whether it is loadproof's mock and at which time scale it runs`,
        ]
      : [];
  const sent = [
    ...asked,
    `a 429 is waited out and sent again, up to ${MAX_ATTEMPTS} attempts in all`,
    'nothing else is sent',
    ...(timeScale === 1 ? [] : [`times below are wall ms, the mock running ${timeScale} times fast`]),
  ];
  const proxy = target.proxy === undefined ? '' : ` through proxy ${target.proxy.shown}`;
  return `check: ${CHECK_CALLS.length} calls to ${where}${proxy}, one to each endpoint: ${CHECK_CALLS.join(', ')} (${sent.join('; ')})`;
}

export function formatCheck(outcome: CheckOutcome): string[] {
  const rows = outcome.steps.map((s) => [
    s.ok ? '✔' : '✖',
    s.endpoint,
    s.status === null ? '—' : String(s.status),
    s.latencyMs === null ? '—' : `${Math.round(s.latencyMs)} ms`,
    s.findings.join('; '),
  ]);
  const verdict =
    outcome.exitCode === 0
      ? 'every endpoint answered as the spec says, and the guard would allow the load test'
      : outcome.exitCode === 1
        ? 'an answer was not what the spec says (✖ above)'
        : outcome.failure === 'AUTH_FAILED'
          ? 'the token endpoint gave no usable token (AUTH_FAILED)'
          : outcome.failure === 'TLS_CERTIFICATE'
            ? "the target's TLS certificate is not one this client accepts (TLS_CERTIFICATE)"
            : outcome.failure === 'HTTP_PROTOCOL'
              ? 'the target speaks only HTTP/2 (HTTP_PROTOCOL)'
              : 'the target could not be reached (TARGET_UNREACHABLE)';
  return [
    ...formatTable(rows, (col) => col === 2 || col === 3).map((r) => `  ${r}`),
    '',
    'the load test itself:',
    ...describeDecision(outcome.guard).map((l) => `  ${l}`),
    '',
    `check: ${verdict} — exit ${outcome.exitCode}`,
  ];
}
