/** `loadproof check <scenario>`: the preflight before booking a load test. Wires modules; no logic here. */
import type { Argv } from 'yargs';

import { TimeScale } from '../../core/index.js';
import { authorize } from '../../guard/index.js';
import { planScenario } from '../../run/index.js';
import { PROFILE_NAMES } from '../../spec/index.js';
import {
  againstEmbeddedMock,
  againstMockNote,
  announceCheck,
  formatCheck,
  resolveCallTarget,
  runCheck,
  targetScenario,
  writtenTimeScale,
} from '../../target/index.js';
import { createTextSource } from '../../texts/index.js';
import type { Io } from '../io.js';
import { CA_OPTION, CREDENTIALS_OPTION, LOOPBACK_AS_REAL_OPTION } from './target-options.js';

export function checkOptions<T>(y: Argv<T>) {
  return y
    .positional('scenario', {
      type: 'string',
      demandOption: true,
      describe: 'Scenario file (YAML or JSON): its target, credentials, first text and plan',
    })
    .option('time-scale', {
      type: 'number',
      default: 1,
      describe: 'Embedded mock only: k times fast (the guard judges the load test at this scale)',
    })
    .option('against-mock', {
      type: 'boolean',
      default: false,
      describe: "The same calls and checks against the embedded mock; nothing is sent to the scenario's target",
    })
    .option('mock-profile', { choices: PROFILE_NAMES, describe: "Embedded mock: override the scenario's profile" })
    .option('ca', CA_OPTION)
    .option('credentials', CREDENTIALS_OPTION)
    .option('json', { type: 'boolean', default: false, describe: 'Print the steps and the guard decision as JSON' })
    .option('allow-loopback-as-real', LOOPBACK_AS_REAL_OPTION);
}

type CheckArgs = Awaited<ReturnType<typeof checkOptions>['argv']>;

export async function runCheckCommand(args: CheckArgs, io: Io): Promise<number> {
  const scale = TimeScale.of(args['time-scale']);
  const written = await targetScenario(args.scenario);
  const scenario = args['against-mock'] ? againstEmbeddedMock(written) : written;
  const { plan, userTexts } = planScenario(scenario, args.scenario, scale.k);
  // The guard first, on the load test these calls prepare, as written (against the mock too): refused, nothing is
  // sent (exit 3). The calls themselves go under the permit for the target they reach.
  const context = { startAtMs: Date.now(), loopbackAsReal: args['allow-loopback-as-real'] };
  const judged = args['against-mock']
    ? planScenario(written, args.scenario, writtenTimeScale(written, scale.k)).plan
    : plan;
  const { decision: guard } = authorize(judged, context);
  const { permit } = authorize(plan, context);
  const target = await resolveCallTarget(scenario, permit, {
    timeScale: scale.k,
    mockProfile: args['mock-profile'],
    env: io.env,
    credentialsFile: args.credentials,
    caFile: args.ca,
  });
  try {
    const text = createTextSource(scenario.payload, userTexts, scenario.mode).next();
    for (const warning of target.warnings) io.stderr(`loadproof: warning: ${warning}\n`);
    if (args['against-mock']) io.stderr(`${againstMockNote(written)}\n`);
    io.stderr(`${announceCheck(target, scale.k)}\n`);
    const outcome = await runCheck({
      guard,
      target,
      text,
      secrets: io.secrets,
      timeoutMs: scale.toWallMs(scenario.timeoutMs),
    });
    if (args.json)
      io.stdout(
        `${JSON.stringify({ target: { kind: target.kind, environment: target.environment, baseUrl: target.baseUrl, tunnel: target.tunnel }, ...outcome }, null, 2)}\n`,
      );
    else io.stdout(`${formatCheck(outcome).join('\n')}\n`);
    return outcome.exitCode;
  } finally {
    await target.embedded?.close();
  }
}
