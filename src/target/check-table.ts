/**
 * How a preflight is shown: the calls announced before they are sent, then one line per call and the guard's decision.
 */
import { formatTable } from '../core/index.js';
import { describeDecision } from '../guard/index.js';
import { CHECK_CALLS, type CheckOutcome } from './check.js';
import type { ResolvedTarget } from './resolve.js';

export function announceCheck(target: ResolvedTarget, timeScale = 1): string {
  const where =
    target.kind === 'embedded-mock'
      ? `the embedded mock at ${target.baseUrl}`
      : target.kind === 'real'
        ? `${target.environment} at ${target.baseUrl}`
        : `the mock at ${target.baseUrl}`;
  const times = timeScale === 1 ? '' : `; times below are wall ms, the mock running ${timeScale} times fast`;
  return `check: ${CHECK_CALLS.length} calls to ${where}, one to each endpoint: ${CHECK_CALLS.join(', ')} (nothing else is sent${times})`;
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
