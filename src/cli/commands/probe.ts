/**
 * `loadproof probe [scenario]`: a closed-loop saturation probe. Wires the probe module to the process; no logic here.
 */
import type { Argv } from 'yargs';

import { EXIT, TimeScale } from '../../core/index.js';
// Only the defaults at start-up: the probe (autocannon and what it loads) is loaded when a probe runs.
import { DEFAULT_CONNECTIONS, DEFAULT_STEP } from '../../probe/index.js';
import { PROFILE_NAMES } from '../../spec/index.js';
import type { Io } from '../io.js';
import { CA_OPTION, CREDENTIALS_OPTION, LOOPBACK_AS_REAL_OPTION } from './target-options.js';

export function probeOptions<T>(y: Argv<T>) {
  return y
    .positional('scenario', {
      type: 'string',
      describe:
        "Probe this scenario's target, with its credentials, notice and maxInFlight (default: the embedded mock)",
    })
    .option('endpoint', {
      choices: ['obfuscation', 'identification'] as const,
      default: 'obfuscation' as const,
      describe: 'The endpoint to probe',
    })
    .option('connections', {
      type: 'string',
      requiresArg: true,
      default: DEFAULT_CONNECTIONS,
      describe: "Connections of each step, going up (at most the scenario's maxInFlight)",
    })
    .option('step', {
      type: 'string',
      requiresArg: true,
      default: DEFAULT_STEP,
      describe: 'How long each step lasts (model time)',
    })
    .option('max-rpm', {
      type: 'number',
      requiresArg: true,
      default: 6000,
      describe: 'The rate no step goes above (requests/min): what the guard judges, held for every step',
    })
    .option('time-scale', {
      type: 'number',
      requiresArg: true,
      default: 1,
      describe: 'Embedded mock only: k times fast',
    })
    .option('mock-profile', { choices: PROFILE_NAMES, describe: 'Embedded mock: its profile' })
    .option('ca', CA_OPTION)
    .option('credentials', CREDENTIALS_OPTION)
    .option('out', {
      type: 'string',
      requiresArg: true,
      default: 'reports',
      describe: "Folder in which a folder is made for the probe's probe.json and probe.md",
    })
    .option('json', { type: 'boolean', default: false, describe: 'Print probe.json on stdout instead of the table' })
    .option('allow-loopback-as-real', LOOPBACK_AS_REAL_OPTION);
}

type ProbeArgs = Awaited<ReturnType<typeof probeOptions>['argv']>;

export async function runProbeCommand(args: ProbeArgs, io: Io): Promise<number> {
  const timeScale = TimeScale.of(args['time-scale']).k;
  const { formatProbe, probeSession } = await (await import('../../probe/index.js')).loadProbe();
  const controller = new AbortController();
  void io.waitForSignal().then((signal) => {
    io.stderr(`loadproof: ${signal}: the probe stops after the requests in flight\n`);
    controller.abort();
  });
  const { report, dir, unwritten } = await probeSession({
    scenarioFile: args.scenario,
    endpoint: args.endpoint,
    connections: args.connections,
    step: args.step,
    maxRpm: args['max-rpm'],
    timeScale,
    mockProfile: args['mock-profile'],
    env: io.env,
    credentialsFile: args.credentials,
    caFile: args.ca,
    loopbackAsReal: args['allow-loopback-as-real'],
    outDir: args.out,
    addSecret: (secret) => io.secrets.add(secret),
    signal: controller.signal,
    log: (line) => io.stderr(`${line}\n`),
    onStep: (s) =>
      io.stderr(
        `loadproof: probe: ${s.connections} connection${s.connections === 1 ? '' : 's'}: ${s.sent} sent, ${s.answered} answered, ${s.http429} 429s\n`,
      ),
  });
  io.stdout(args.json ? `${JSON.stringify(report, null, 2)}\n` : formatProbe(report));
  io.stderr(`probe: ${dir}/probe.json\n`);
  for (const f of unwritten) io.stderr(`loadproof: RUN_FAILED: could not write ${f.file} (${f.error})\n`);
  if (unwritten.length > 0) return EXIT.runFailed;
  if (report.result.endedBy === 'interrupted') return EXIT.interrupted;
  // The steps measured are reported; the probe did not run to its end.
  if (report.result.endedBy === 'token failed') return EXIT.runFailed;
  // A target that never answered 2xx was not probed: its "ceiling" would be a failure to reach it.
  return report.result.steps.some((s) => s.ok > 0) ? EXIT.pass : EXIT.runFailed;
}
