/**
 * The target of a few calls beside a load test (a one-shot de-identification, a preflight): a
 * scenario's, resolved as a run resolves it (credentials from the environment or a file, the
 * embedded mock when the scenario names no baseUrl), or the embedded mock when no scenario is given.
 */
import { type SendPermit, UsageError } from '../core/index.js';
import { loadScenario, parseScenario, type Scenario } from '../scenario/index.js';
import type { ProfileName } from '../spec/index.js';
import { type ResolvedTarget, resolveTarget } from './resolve.js';

/** What a scenario-less one-shot uses: the embedded mock, with the scenario file's defaults. */
const EMBEDDED_MOCK_SCENARIO =
  'name: one-shot\ndescription: a few calls to the embedded mock\ntarget: { environment: mock }\nphases: [{ name: one, duration: 1s, rpm: 60 }]\n';

interface CallTargetOptions {
  /** A scenario file whose target to use; the embedded mock when absent. */
  readonly scenarioFile: string | undefined;
  readonly timeScale: number;
  readonly mockProfile: ProfileName | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly credentialsFile: string | undefined;
  /** --ca <file>: a private CA trusted besides Node's own (overrides target.tls.ca). */
  readonly caFile?: string | undefined;
}

/** The scenario whose target is called: the file's, or the embedded mock's when there is none. */
export async function targetScenario(scenarioFile: string | undefined): Promise<Scenario> {
  return scenarioFile === undefined
    ? parseScenario(EMBEDDED_MOCK_SCENARIO, '(embedded mock)')
    : await loadScenario(scenarioFile);
}

/**
 * Resolves `scenario`'s target (starting the embedded mock when it is one): only with the guard's permit for what will
 * be sent.
 */
export async function resolveCallTarget(
  scenario: Scenario,
  permit: SendPermit,
  options: Omit<CallTargetOptions, 'scenarioFile'>,
): Promise<ResolvedTarget> {
  const target = await resolveTarget(scenario, permit, {
    timeScale: options.timeScale,
    mockProfile: options.mockProfile,
    env: options.env,
    credentialsFile: options.credentialsFile,
    caFile: options.caFile,
  });
  // Only a mock runs k times fast: a real service at k > 1 would only see deadlines k times shorter.
  if (target.kind === 'real' && options.timeScale !== 1) {
    throw new UsageError(
      `--time-scale ${options.timeScale}: ${target.environment} is a real environment, which runs in real time; only the mock takes a time scale`,
      'drop --time-scale; nothing was sent',
    );
  }
  return target;
}
