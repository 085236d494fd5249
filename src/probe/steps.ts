/**
 * What a saturation probe steps through: connection counts, each held for one step, at a capped rate.
 * Its worst case, as the guard judges it, is the cap held for every step: a closed loop's rate is
 * otherwise unbounded (connections ÷ latency), so the cap is what makes it safe to point anywhere.
 */
import { TimeScale, UsageError } from '../core/index.js';
import { parseDurationMs, type Phase, type Scenario } from '../scenario/index.js';

export interface ProbeSteps {
  /** Connections of each step, ascending. */
  readonly connections: readonly number[];
  /** Each step's length (model ms). */
  readonly stepMs: number;
  /** The rate no step goes above (requests per minute, model time). */
  readonly maxRpm: number;
}

export const DEFAULT_CONNECTIONS = '1,2,4,8,16,32,64';
export const DEFAULT_STEP = '30s';
/** A probe longer than this is a soak, not a probe (and a probe loop is bounded in time). */
const MAX_PROBE_STEPS = 32;
const STEP_BOUNDS_MS = { min: 1_000, max: 30 * 60_000 } as const;

/** `--connections 1,2,4`, `--step 30s` and `--max-rpm N`, checked against the scenario's maxInFlight. */
export function parseProbeSteps(
  connectionsText: string,
  stepText: string,
  maxRpm: number,
  maxInFlight: number,
  timeScale = 1,
): ProbeSteps {
  const parts = connectionsText.split(',').map((s) => s.trim());
  const connections = parts.map(Number);
  const bad = parts.find((s, i) => !/^\d+$/.test(s) || connections[i]! < 1);
  if (bad !== undefined || parts.length === 0)
    throw new UsageError(
      `--connections: expected a comma list of whole numbers from 1, like ${DEFAULT_CONNECTIONS}, got "${connectionsText}"`,
    );
  if (connections.length > MAX_PROBE_STEPS)
    throw new UsageError(`--connections: expected at most ${MAX_PROBE_STEPS} steps, got ${connections.length}`);
  if (connections.some((c, i) => i > 0 && c <= connections[i - 1]!))
    throw new UsageError(`--connections: expected counts that go up, got "${connectionsText}"`);
  const most = connections[connections.length - 1]!;
  if (most > maxInFlight) {
    throw new UsageError(
      `--connections: ${most} is more than the scenario's maxInFlight of ${maxInFlight}`,
      'a closed loop holds one request in flight per connection: raise maxInFlight in the scenario (the guard judges it), or step to fewer connections',
    );
  }
  const stepMs = parseDurationMs(stepText);
  if (stepMs === undefined || stepMs < STEP_BOUNDS_MS.min || stepMs > STEP_BOUNDS_MS.max)
    throw new UsageError(`--step: expected a duration from 1s to 30m, like ${DEFAULT_STEP}, got "${stepText}"`);
  const scale = TimeScale.of(timeScale);
  if (scale.toWallMs(stepMs) < STEP_BOUNDS_MS.min) {
    throw new UsageError(
      `--step: ${stepText} at time scale ${timeScale} is ${scale.toWallMs(stepMs)} ms of wall time; expected at least 1 s of it (autocannon paces whole seconds)`,
      `a step of at least ${scale.toModelMs(STEP_BOUNDS_MS.min) / 1000}s, or a lower --time-scale`,
    );
  }
  if (!(Number.isFinite(maxRpm) && maxRpm >= 1 && maxRpm <= 600_000))
    throw new UsageError(`--max-rpm: expected a rate from 1 to 600000 requests per minute, got ${maxRpm}`);
  // autocannon paces on the wall clock, and cuts the connections to its rate (per second) when that is lower.
  if (Math.floor(scale.toWallRate(maxRpm) / 60) < most) {
    throw new UsageError(
      `--max-rpm: ${maxRpm} is under one request a second (of wall time) per connection at ${most} connections`,
      'autocannon would cut the connections to the rate; raise --max-rpm or step to fewer connections',
    );
  }
  return { connections, stepMs, maxRpm };
}

/**
 * The probe as a scenario of constant phases, one per step: what the guard judges, as for any run. A step
 * is judged at its cap and a sixtieth more (autocannon paces whole requests a wall second, so a sliding
 * minute can hold one second's more), for its length, its stop (autocannon's 100 ms) and the pause after
 * it (up to the client deadline): more than it sends, never less.
 */
export function probeScenario(scenario: Scenario, steps: ProbeSteps): Scenario {
  const rpm = Math.ceil((steps.maxRpm * 61) / 60);
  const durationMs = steps.stepMs + scenario.timeoutMs + 1000;
  const phases: Phase[] = steps.connections.map((c) => ({
    name: `${c} connection${c === 1 ? '' : 's'}`,
    durationMs,
    fromRpm: rpm,
    toRpm: rpm,
    warmupMs: 0,
  }));
  // Each request is sent once: autocannon neither retries a 429 nor renews a token mid-step.
  return {
    ...scenario,
    mode: 'identification',
    phases,
    arrivals: { ...scenario.arrivals, process: 'constant' },
    on429: { ...scenario.on429, policy: 'record', maxAttempts: 1 },
  };
}
