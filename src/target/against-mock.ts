/**
 * `check --against-mock`: a scenario's preflight rehearsed against the embedded mock. The scenario stays as written
 * (its texts, credentials' variable names, raised limits, timeouts) but for its target, which becomes the embedded
 * mock: nothing is resolved, asked or sent at the scenario's own address. The guard still judges the load test as
 * written (its environment, notice and coordination rules): a rehearsal never allows what the real check refuses.
 */
import { UsageError } from '../core/index.js';
import type { Scenario } from '../scenario/index.js';

export function againstEmbeddedMock(scenario: Scenario): Scenario {
  const t = scenario.target;
  if (t.environment === 'mock' && t.baseUrl === undefined)
    throw new UsageError(
      '--against-mock: the scenario already targets the embedded mock (target.environment mock without a baseUrl); expected a scenario with a target of its own',
      'drop --against-mock',
    );
  // Only what shapes the calls is kept: the credentials' variable names and the connection's idle time. The address,
  // its audience, TLS trust and tunnel belong to the target that is not called.
  return {
    ...scenario,
    target: {
      environment: 'mock',
      credentials: t.credentials,
      ...(t.idleConnection === undefined ? {} : { idleConnection: t.idleConnection }),
    },
  };
}

/** What the user is told before the calls: which target is left alone. */
export function againstMockNote(scenario: Scenario): string {
  const t = scenario.target;
  return `--against-mock: the scenario's target (${t.environment}${t.baseUrl === undefined ? '' : ` at ${t.baseUrl}`}) is not contacted; the same calls and checks go to the embedded mock`;
}

/**
 * The time scale the written scenario's load test is judged at: a real environment runs in real time whatever the
 * mock's calls are compressed by; a mock of its own at the mock's.
 */
export function writtenTimeScale(written: Scenario, k: number): number {
  return written.target.environment === 'mock' ? k : 1;
}
