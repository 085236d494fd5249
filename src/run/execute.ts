/**
 * One run, end to end: scenario → plan → guard (refuses before anything is sent) → target and
 * credentials → token (before any load) → open-model engine →
 * recorder (events streamed to events.ndjson as they complete) → verdict → summary.json. A stop
 * signal ends the firing, waits for answers up to the client timeout, and still writes everything,
 * marked interrupted. Exit code: 0 pass, 1 fail, 5 inconclusive, 130 interrupted. Every secret
 * (client secret, each access token) is added to the mask as soon as it is known, and every line
 * written passes through it.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Agent } from 'undici';
import { createIdentify } from '../client/api.js';
import { TokenProvider } from '../client/token.js';
import { ScaledClock } from '../core/clock.js';
import { GuardRefusal, UsageError } from '../core/errors.js';
import { EXIT } from '../core/exit-codes.js';
import type { SecretMask } from '../core/redact.js';
import { formatMs } from '../core/text.js';
import { createRng } from '../core/rng.js';
import { generateNote } from '../corpus/index.js';
import { type RequestEvent, runPlan } from '../engine/index.js';
import { describeDecision, effectiveLimits, evaluateGuard } from '../guard/index.js';
import type { ProfileName } from '../mock/index.js';
import { type Plan, buildPlan, envelopeFlags } from '../plan/index.js';
import { Recorder } from '../recorder/index.js';
import { loadScenario } from '../scenario/index.js';
import { API_PATHS } from '../spec/index.js';
import { evaluateVerdict } from '../verdict/index.js';
import { type Summary, buildSummary } from './summary.js';
import { resolveTarget } from './target.js';

export interface RunOptions {
  readonly scenarioFile: string;
  readonly timeScale: number;
  readonly mockProfile: ProfileName | undefined;
  /** Folder under which the run's report folder is made. */
  readonly outDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborted on SIGINT/SIGTERM. */
  readonly signal: AbortSignal;
  /** --credentials <file>. */
  readonly credentialsFile: string | undefined;
  /** Tests only (--allow-loopback-as-real): a real environment at a loopback URL is judged as real. */
  readonly loopbackAsReal: boolean;
  /** --verbose: a line per token call and per request (never a header or a body). */
  readonly verbose: boolean;
  /** Secrets are added here as soon as they are known; everything written passes through it. */
  readonly secrets: SecretMask;
  /** Progress lines (stderr). */
  readonly log: (line: string) => void;
}

export interface RunOutcome {
  readonly exitCode: number;
  readonly reportDir: string;
  readonly summary: Summary;
}

const round = (ms: number | undefined): number | null => (ms === undefined ? null : Math.round(ms * 1000) / 1000);

/** One line of events.ndjson: a planned request's fate, in model ms from the run start. */
function eventLine(plan: Plan, e: RequestEvent): string {
  const r = e.result;
  return `${JSON.stringify({
    seq: e.seq,
    phase: plan.phases[e.phase]!.name,
    intendedAtMs: round(e.intendedAtMs),
    firedAtMs: round(e.firedAtMs),
    lastSentAtMs: round(r?.lastSentAtMs),
    endAtMs: round(r?.endAtMs),
    latencyMs: r === undefined ? null : round(r.endAtMs - e.intendedAtMs),
    outcome: e.outcome,
    status: r?.status ?? null,
    attempts: r?.attempts ?? 0,
    retryAfterS: r?.retryAfterS ?? [],
  })}\n`;
}

/** 20261121T040612Z */
const stamp = (d: Date): string => d.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');

export async function executeRun(options: RunOptions): Promise<RunOutcome> {
  const k = options.timeScale;
  if (!(k > 0) || !Number.isFinite(k)) throw new UsageError(`--time-scale: expected a number > 0, got ${k}`);
  const scenario = await loadScenario(options.scenarioFile);
  const plan = buildPlan(scenario, { timeScale: k });
  // The run starts now; `plan --at` asks the same question for another time.
  const guard = evaluateGuard(plan, { startAtMs: Date.now(), loopbackAsReal: options.loopbackAsReal });
  if (!guard.allowed) throw new GuardRefusal(guard.reasons);
  if (guard.real) for (const line of describeDecision(guard)) options.log(line);
  const target = await resolveTarget(scenario, { timeScale: k, mockProfile: options.mockProfile, env: options.env, credentialsFile: options.credentialsFile });
  const secrets = options.secrets;
  secrets.add(target.clientSecret);
  for (const warning of target.warnings) options.log(`loadproof: warning: ${warning}`);
  const agent = new Agent({ connections: scenario.maxInFlight + 1, pipelining: 1 });
  try {
    // keepAlive: the engine's sleeps until the next arrival hold the process open; precise: send lag well under 1 ms.
    const clock = new ScaledClock(k, { keepAlive: true, precise: true });
    const steadyFrom = plan.phases.map((p) => p.startMs + p.warmupMs);
    const recorder = new Recorder(steadyFrom, scenario.windowMs);
    const tokens = new TokenProvider({
      baseUrl: target.baseUrl,
      audience: target.audience,
      clientId: target.clientId,
      clientSecret: target.clientSecret,
      credentialSource: target.credentialSource,
      dispatcher: agent,
      clock,
      timeoutMs: Math.max(1000, scenario.timeoutMs / k),
      onFetch: (ms, status) => {
        recorder.tokenLatency.recordMs(ms);
        if (options.verbose) options.log(`token: POST ${target.baseUrl.replace(/\/+$/, '')}${API_PATHS.token} → ${status} in ${formatMs(ms)} (credentials from ${target.credentialSource}; token not shown)`);
      },
      onToken: (token) => secrets.add(token),
    });
    // The token comes first and is not part of the load: a failure here stops the run before any request.
    await tokens.get();

    const startedAt = new Date();
    const reportDir = join(options.outDir, `${stamp(startedAt)}-${scenario.name}`);
    await mkdir(reportDir, { recursive: true });
    const events = createWriteStream(join(reportDir, 'events.ndjson'));
    // 429s inside the envelope are findings: the documented one, or the one support raised.
    const inside = envelopeFlags(plan, effectiveLimits(scenario));
    const textRng = createRng(scenario.payload.seed);
    const identify = createIdentify({
      baseUrl: target.baseUrl,
      dispatcher: agent,
      tokens,
      clock,
      timeScale: k,
      timeoutMs: scenario.timeoutMs,
      on429: { ...scenario.on429 },
      rng: createRng(scenario.arrivals.seed + 7),
    });
    options.log(`loadproof: ${scenario.name}: ${plan.arrivals} requests over ${plan.durationMs / 1000} s of model time (${(plan.durationMs / k / 1000).toFixed(1)} s of wall time) against ${target.baseUrl}`);
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const engine = await runPlan({
      plan,
      identify,
      // Texts are drawn in arrival order from the payload seed, so a run repeats.
      payload: () => generateNote(textRng, { minChars: scenario.payload.minChars, maxChars: scenario.payload.maxChars }),
      clock,
      maxInFlight: scenario.maxInFlight,
      signal: options.signal,
      drainMs: scenario.timeoutMs,
      onEvent: (e) => {
        recorder.record(e, inside[e.seq] === 1);
        const line = secrets.redact(eventLine(plan, e));
        events.write(line);
        if (options.verbose) options.log(`request: ${line.trimEnd()}`);
      },
    });
    loop.disable();
    const eventLoopDelayP99Ms = loop.count > 0 ? loop.percentile(99) / 1e6 : null;
    const lag = recorder.overall.sendLag.summary();
    const verdict = evaluateVerdict({
      phases: plan.phases.map((p, i) => ({
        name: p.name,
        band: p.band,
        steady: recorder.steady[i]!,
        all: recorder.phases[i]!,
        http429InsideEnvelope: recorder.http429InsideEnvelope[i]!,
        thresholds: [...scenario.thresholds.all, ...(scenario.thresholds.byPhase.get(p.name) ?? [])],
      })),
      documentedTargets: scenario.thresholds.documentedTargets,
      generator: {
        sendLagP99WallMs: Number.isFinite(lag.p99) ? lag.p99 / k : 0,
        sendLagMaxWallMs: Number.isFinite(lag.max) ? lag.max / k : 0,
        ...(eventLoopDelayP99Ms === null ? {} : { eventLoopDelayP99Ms }),
      },
    });
    const exitCode = engine.interrupted ? EXIT.interrupted : { pass: EXIT.pass, fail: EXIT.slaNotMet, inconclusive: EXIT.inconclusive }[verdict.status];
    const summary = buildSummary(plan, recorder, verdict, {
      environment: target.environment,
      baseUrl: target.baseUrl,
      embeddedMock: target.embedded !== undefined,
      profile: target.profile,
      startedAt: startedAt.toISOString(),
      endedAt: new Date().toISOString(),
      engine,
      tokenCalls: tokens.fetchCount,
      eventLoopDelayP99Ms,
      guard,
    });
    await new Promise<void>((resolve, reject) => events.end((error?: Error | null) => (error ? reject(error) : resolve())));
    await writeFile(join(reportDir, 'summary.json'), secrets.redact(`${JSON.stringify(summary, null, 2)}\n`));
    return { exitCode, reportDir, summary };
  } finally {
    await agent.close();
    await target.embedded?.close();
  }
}
