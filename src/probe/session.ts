/**
 * `loadproof probe`, end to end: the scenario's target (the embedded mock when none is given), the
 * steps checked, the guard judging the probe's worst case (its cap held for every step) exactly as it
 * judges a run, and only then the mock started, a token fetched and the steps run. The report goes to
 * a folder of its own beside the runs: probe.json and probe.md.
 */
import { join } from 'node:path';

import { ApiCallError, ChainError, fetchToken, HEADER_SAFE } from '../client/index.js';
import { createRng, RunFailure, TimeScale, UsageError, writeAtomically } from '../core/index.js';
import { authorize, describeDecision } from '../guard/index.js';
import { buildPlan } from '../plan/index.js';
import { makeRunFolder, removeRunFolder } from '../run-folder/index.js';
import { API_PATHS, type ProfileName } from '../spec/index.js';
import { proxyRoute, resolveCallTarget, type ResolvedTarget, targetScenario } from '../target/index.js';
import { generateDocument, generateNote } from '../texts/index.js';
import { type ProbeStep, runProbe } from './probe.js';
import { probeMarkdown, type ProbeReport } from './probe-report.js';
import { parseProbeSteps, probeScenario } from './steps.js';

export type ProbeEndpoint = 'identification' | 'obfuscation';

export interface ProbeSessionOptions {
  readonly scenarioFile: string | undefined;
  readonly endpoint: ProbeEndpoint;
  readonly connections: string;
  readonly step: string;
  readonly maxRpm: number;
  readonly timeScale: number;
  readonly mockProfile: ProfileName | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly credentialsFile: string | undefined;
  /** --ca <file>: a private CA trusted besides Node's own (overrides target.tls.ca). */
  readonly caFile?: string | undefined;
  readonly loopbackAsReal: boolean;
  readonly outDir: string;
  /** Called with each secret (the access token) as soon as it is known, so that every output masks it. */
  readonly addSecret: (secret: string) => void;
  readonly signal: AbortSignal;
  readonly log: (line: string) => void;
  readonly onStep?: (step: ProbeStep) => void;
}

export interface ProbeSession {
  readonly report: ProbeReport;
  readonly dir: string;
  /** Files that could not be written, with why. */
  readonly unwritten: readonly { readonly file: string; readonly error: string }[];
}

export async function probeSession(o: ProbeSessionOptions): Promise<ProbeSession> {
  const scenario = await targetScenario(o.scenarioFile);
  const steps = parseProbeSteps(o.connections, o.step, o.maxRpm, scenario.maxInFlight, o.timeScale);
  refuseUnverifiedTls(scenario.target);
  // The guard's phases: each step at its cap, for as long as it may take with its pause after it.
  const { decision: guard, permit } = authorize(buildPlan(probeScenario(scenario, steps), { timeScale: o.timeScale }), {
    startAtMs: Date.now(),
    loopbackAsReal: o.loopbackAsReal,
    endpoint: o.endpoint,
  });
  if (guard.real) for (const line of describeDecision(guard)) o.log(line);
  refuseProxy(scenario.target.baseUrl, o.env);
  const target = await resolveCallTarget(scenario, permit, o);
  o.addSecret(target.clientSecret);
  try {
    for (const warning of target.warnings) o.log(`loadproof: warning: ${warning}`);
    // autocannon connects with certificate verification off, whatever it is given: said, never silent (a real
    // environment over https is refused before this).
    if (target.baseUrl.startsWith('https:'))
      o.log(
        "loadproof: warning: the probe's token call verifies the server's certificate, but its load (autocannon) does not: run it only where nothing can stand between you and the target",
      );
    // Made before any load, so that a folder that cannot be made costs no traffic. Named by the endpoint too: probes
    // of one scenario (or of none: "one-shot") at each endpoint are told apart.
    const startedAt = new Date();
    const dir = await makeRunFolder(o.outDir, `probe-${o.endpoint}-${scenario.name}`, startedAt);
    const token = (): Promise<string> =>
      probeToken(target, TimeScale.of(o.timeScale).toWallMs(scenario.timeoutMs), o.addSecret);
    const url = target.baseUrl.replace(/\/+$/, '') + API_PATHS[o.endpoint];
    const result = await runProbe({
      permit,
      request: {
        url,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: probeBody(o.endpoint, scenario.arrivals.seed),
      },
      steps,
      token,
      timeScale: o.timeScale,
      timeoutMs: scenario.timeoutMs,
      signal: o.signal,
      ...(o.onStep === undefined ? {} : { onStep: o.onStep }),
      onPause: (wallMs) =>
        o.log(
          `loadproof: probe: waiting ${(wallMs / 1000).toFixed(1)} s (the client deadline) for the requests cut at the step's end to leave the service`,
        ),
    }).catch(async (error: unknown) => {
      // Before its first step (a token call that failed): nothing was measured, and no folder is left.
      await removeRunFolder(dir);
      throw error;
    });
    const report: ProbeReport = {
      scenario: scenario.name,
      endpoint: o.endpoint,
      url: API_PATHS[o.endpoint],
      target: targetLabel(target),
      timeScale: o.timeScale,
      stepMs: steps.stepMs,
      maxRpm: steps.maxRpm,
      startedAt: startedAt.toISOString(),
      result,
    };
    return { report, dir, unwritten: await writeProbeReport(dir, report) };
  } finally {
    await target.embedded?.close();
  }
}

/** A token for the probe's requests; a failure to get one, or one no header can carry, stops the probe. */
async function probeToken(
  target: ResolvedTarget,
  timeoutMs: number,
  addSecret: (secret: string) => void,
): Promise<string> {
  let value: string;
  try {
    value = await fetchToken({ target, timeoutMs, onToken: addSecret });
  } catch (error) {
    if (error instanceof ApiCallError && error.failure !== undefined) throw error.failure;
    if (error instanceof ApiCallError)
      throw new RunFailure(
        error.status === null ? 'TARGET_UNREACHABLE' : 'AUTH_FAILED',
        `${error.message}; the probe stopped there`,
      );
    if (error instanceof ChainError) throw new RunFailure('AUTH_FAILED', `${error.message}; the probe stopped there`);
    throw error;
  }
  // autocannon writes headers as given: a token with a CR or LF would smuggle requests the guard never judged.
  if (!HEADER_SAFE.test(value))
    throw new RunFailure(
      'AUTH_FAILED',
      'token: the access_token holds characters a header cannot carry (only visible ASCII); the probe stopped there',
    );
  return value;
}

/** What the probe ran against, as its report names it. */
function targetLabel(target: ResolvedTarget): string {
  return target.kind === 'real'
    ? target.environment
    : `${target.embedded === undefined ? 'a mock' : 'the embedded mock'}${target.profile === null ? '' : `, profile ${target.profile}`}`;
}

/** Writes probe.json and probe.md into `dir`; the files that could not be written, with why. */
async function writeProbeReport(dir: string, report: ProbeReport): Promise<ProbeSession['unwritten']> {
  const written = [
    await writeAtomically(join(dir, 'probe.json'), `${JSON.stringify(report, null, 2)}\n`),
    await writeAtomically(join(dir, 'probe.md'), probeMarkdown(report)),
  ];
  return written.flatMap((f) => (f.error === null ? [] : [{ file: f.file, error: f.error }]));
}

/**
 * The one body every request of the probe sends (a closed loop repeats it): a synthetic note for
 * identification; for obfuscation, a synthetic document with the spans of the PHI put into it.
 */
function probeBody(endpoint: ProbeEndpoint, seed: number): string {
  const rng = createRng(seed);
  if (endpoint === 'identification') return JSON.stringify({ text: generateNote(rng) });
  const doc = generateDocument(rng);
  // The planted spans, in text order and never overlapping: the entities the obfuscation is given.
  const entities = doc.phi.map((p) => ({ type: p.kind, start: p.start, end: p.end }));
  return JSON.stringify({ text: doc.text, entities, style: 'tag' });
}

/**
 * autocannon, the probe's load client, connects with certificate verification off whatever it is given: against a
 * real environment over https its every request would carry the access token over a connection nobody checked. Refused
 * (exit 2, as the proxy it cannot use: the tool's own limit, not a rule of the service's) before the guard, the token
 * call or anything else; a mock keeps the warning.
 */
function refuseUnverifiedTls(target: { environment: string; baseUrl?: string | undefined }): void {
  if (target.environment === 'mock' || target.baseUrl === undefined || !target.baseUrl.startsWith('https:')) return;
  throw new UsageError(
    `probe: ${target.environment} at ${target.baseUrl} is https, and the probe's load client (autocannon) does not verify the server's certificate: the access token would go over a connection nobody checked`,
    'measure capacity with loadproof run and a stepping scenario (see scenarios/capacity-step.yaml): its client verifies the certificate; nothing was sent',
  );
}

/**
 * autocannon, the probe's client, has no proxy support: a target the environment sends through a proxy is refused
 * (exit 2) before anything is sent, rather than probed by another path than the one its users take.
 */
function refuseProxy(baseUrl: string | undefined, env: Readonly<Record<string, string | undefined>>): void {
  const proxy = baseUrl === undefined ? undefined : proxyRoute(baseUrl, env).proxy;
  if (proxy === undefined) return;
  throw new UsageError(
    `probe: ${proxy.variable} sends ${baseUrl} through the proxy ${proxy.shown}, and the probe's client (autocannon) cannot go through a proxy`,
    "list the target's host in NO_PROXY to probe it directly, or measure through the proxy with loadproof run; nothing was sent",
  );
}
