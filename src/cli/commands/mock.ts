/** `loadproof mock`: start the mock server until SIGINT/SIGTERM. */
import type { Argv } from 'yargs';

import { capYoungGeneration, checkListenHost, EXIT, exposureOf, TimeScale } from '../../core/index.js';
import { MOCK_DEFAULTS } from '../../mock/index.js';
import { PROFILE_NAMES, type ProfileName } from '../../spec/index.js';
import type { Io } from '../io.js';

export function mockOptions<T>(y: Argv<T>) {
  return y
    .option('host', {
      type: 'string',
      requiresArg: true,
      default: MOCK_DEFAULTS.host,
      describe:
        'Interface to bind (loopback by default; another is said on stderr; an empty or ambiguous host is refused)',
    })
    .option('port', { type: 'number', default: MOCK_DEFAULTS.port, describe: 'Port; 0 picks a free one' })
    .option('profile', {
      choices: PROFILE_NAMES,
      default: MOCK_DEFAULTS.profile as ProfileName,
      describe: 'Behaviour profile',
    })
    .option('time-scale', {
      type: 'number',
      default: MOCK_DEFAULTS.timeScale,
      describe: 'k, from 1 to 1000: the mock runs k times fast (rates × k, times ÷ k)',
    })
    .option('seed', { type: 'number', default: MOCK_DEFAULTS.seed, describe: 'Seed of the latency model and faults' })
    .option('client-id', {
      type: 'string',
      default: MOCK_DEFAULTS.clientId,
      describe: 'The client_id the token endpoint accepts',
    })
    .option('client-secret', {
      type: 'string',
      describe: `The client_secret it accepts (default "${MOCK_DEFAULTS.clientSecret}")`,
    })
    .option('token-ttl', {
      type: 'number',
      default: MOCK_DEFAULTS.tokenTtlS,
      describe: 'Access-token lifetime, model seconds',
    })
    .option('sustained-rpm', { type: 'number', describe: 'Identification: rate-limit refill (requests/min)' })
    .option('burst-rpm', {
      type: 'number',
      describe: 'Identification: rate allowed for --burst-minutes from a full bucket',
    })
    .option('burst-minutes', { type: 'number', describe: 'Identification: how long --burst-rpm may run' })
    .option('max-in-flight', { type: 'number', describe: 'Identification: requests processed at once' })
    .option('queue-limit', {
      type: 'number',
      describe: 'Identification: requests waiting beyond --max-in-flight before 429',
    })
    .option('timeout-s', { type: 'number', describe: 'Identification: time in the server before 504 (model s)' })
    .option('fault-reset', { type: 'number', describe: 'Probability of a connection reset per pipeline request' })
    .option('fault-500', { type: 'number', describe: 'Probability of a 500' })
    .option('fault-malformed', { type: 'number', describe: 'Probability of a malformed JSON body' })
    .option('fault-slow', { type: 'number', describe: 'Probability of a slow response' })
    .option('slow-ms', { type: 'number', describe: 'Extra delay of a slow response (model ms)' })
    .option('json', { type: 'boolean', default: false, describe: 'Print one JSON line once listening' });
}

type MockArgs = Awaited<ReturnType<typeof mockOptions>['argv']>;

/** Drops keys whose value is undefined (exactOptionalPropertyTypes). */
function defined<T extends Record<string, unknown>>(record: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

export async function runMock(args: MockArgs, io: Io): Promise<number> {
  // A long-lived mock serves run after run: its RSS must not step up at the second (src/core/young-generation.ts).
  capYoungGeneration();
  const server = await (
    await import('../../mock/index.js')
  ).startMockServer({
    host: checkListenHost('--host', args.host),
    port: args.port,
    profile: args.profile,
    timeScale: TimeScale.of(args['time-scale']).k,
    seed: args.seed,
    clientId: args['client-id'],
    ...defined({ clientSecret: args['client-secret'] }),
    tokenTtlS: args['token-ttl'],
    limits: defined({
      sustainedRpm: args['sustained-rpm'],
      burstRpm: args['burst-rpm'],
      burstMinutes: args['burst-minutes'],
      maxInFlight: args['max-in-flight'],
      queueLimit: args['queue-limit'],
      timeoutS: args['timeout-s'],
    }),
    faults: defined({
      resetRate: args['fault-reset'],
      http500Rate: args['fault-500'],
      malformedRate: args['fault-malformed'],
      slowRate: args['fault-slow'],
      slowExtraMs: args['slow-ms'],
    }),
  });
  // Listen for signals before announcing the server: whoever reads the line may signal at once.
  const signalled = io.waitForSignal();
  // Whatever --host said, the address bound decides: the mock's credentials are documented defaults.
  if (exposureOf(new URL(server.url).hostname) !== 'loopback') {
    io.stderr(
      `loadproof: WARNING: --host: the mock listens on ${server.url}, ${exposureOf(new URL(server.url).hostname) === 'every-interface' ? 'on EVERY network interface of this host' : 'on a network interface (not loopback)'}: anyone who can reach it can take a token with its credentials and send it traffic\n`,
    );
  }
  const info = {
    url: server.url,
    audience: server.audience,
    clientId: server.clientId,
    clientSecret: server.clientSecret,
    profile: server.profile,
    timeScale: server.timeScale,
  };
  if (args.json) {
    io.stdout(`${JSON.stringify(info)}\n`);
  } else {
    // The mock's own credential is printed only when it is the documented default.
    const secret =
      args['client-secret'] === undefined ? `"${server.clientSecret}" (default)` : '(as given by --client-secret)';
    io.stdout(
      [
        `loadproof mock listening on ${server.url}`,
        `  profile ${server.profile}, time scale ${server.timeScale}`,
        `  client_id "${server.clientId}", client_secret ${secret}, audience "${server.audience}"`,
        `  stats: GET ${server.url}/__mock/stats · stop with Ctrl-C`,
        '',
      ].join('\n'),
    );
  }
  const signal = await signalled;
  await server.close();
  if (!args.json) io.stderr(`loadproof mock: ${signal}, closed\n`);
  return EXIT.pass;
}
