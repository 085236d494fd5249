/**
 * Step 1 of a run, and the run's entry point: scenario, plan and guard, all before anything is
 * opened or sent. Only then is the measuring half (measure-and-judge.ts: the HTTP client, the engine, the
 * embedded mock, the recorder) loaded, so that a scenario refused here costs the CLI a fraction of
 * its start-up (loading those modules is most of a refused run's CPU).
 */
import { authorize, describeDecision } from '../guard/index.js';
import { planIdentity, shardPlan } from '../plan/index.js';
import { parseScenario, readScenarioText } from '../scenario/index.js';
import { MAX_OBFUSCATION_CHARS } from '../spec/index.js';
import { checkPhiGroundTruth } from './phi-ground-truth.js';
import { planScenario } from './plan-scenario.js';
import type { PreparedRun, RunOptions, RunOutcome } from './run-options.js';
import { checkStartAt } from './start-at.js';

/** One run, end to end: prepare here, then measure and judge (measure-and-judge.ts). */
export async function executeRun(options: RunOptions): Promise<RunOutcome> {
  const prepared = await prepare(options);
  const { measureAndJudge } = await import('./measure-and-judge.js');
  return measureAndJudge(options, prepared);
}

/** Step 1: scenario, plan and guard — all before anything is opened or sent. */
async function prepare(options: RunOptions): Promise<PreparedRun> {
  const scale = options.timeScale;
  const scenarioText = await readScenarioText(options.scenarioFile);
  const scenario = parseScenario(scenarioText, options.scenarioFile);
  const startAtMs = checkStartAt(options.startAtMs, Date.now(), scale);
  const { plan: whole, userTexts } = planScenario(scenario, options.scenarioFile, scale.k);
  checkPhiGroundTruth(scenario, userTexts, options.scenarioFile);
  // The run starts now (or at --start-at); `plan --at` asks the same question for another time. A shard
  // is judged as the whole plan it is part of, whatever the shard count: n shards send all of it.
  // Refused: a GuardRefusal, and nothing opened or sent. Allowed: the permit every send of the run needs.
  // Each shard is a process with its own token call: n shards, n token calls.
  const { decision: guard, permit } = authorize(whole, {
    startAtMs,
    loopbackAsReal: options.loopbackAsReal,
    processes: options.shard?.count ?? 1,
  });
  const plan = options.shard === undefined ? whole : shardPlan(whole, options.shard);
  if (guard.real) for (const line of describeDecision(guard)) options.log(line);
  const tooLong =
    scenario.mode === 'deid' ? (userTexts?.documents.filter((d) => d.text.length > MAX_OBFUSCATION_CHARS) ?? []) : [];
  if (tooLong.length > 0) {
    options.log(
      `loadproof: payload: warning: ${tooLong.length} document${tooLong.length === 1 ? ' is' : 's are'} over ${MAX_OBFUSCATION_CHARS} characters, more than loadproof's mock obfuscates in one call (they will fail at obfuscation against it): ${tooLong
        .slice(0, 5)
        .map((d) => d.name)
        .join(', ')}${tooLong.length > 5 ? ', …' : ''}`,
    );
  }
  if (userTexts !== undefined && userTexts.notUtf8.length > 0) {
    options.log(
      `loadproof: payload: warning: ${userTexts.notUtf8.length} text${userTexts.notUtf8.length === 1 ? ' is' : 's are'} not valid UTF-8 and ${userTexts.notUtf8.length === 1 ? 'is' : 'are'} sent with U+FFFD for the bad bytes: ${userTexts.notUtf8.slice(0, 5).join(', ')}${userTexts.notUtf8.length > 5 ? ', …' : ''}`,
    );
  }
  if (userTexts !== undefined && userTexts.empty.length > 0) {
    options.log(
      `loadproof: payload: ${userTexts.empty.length} empty text${userTexts.empty.length === 1 ? '' : 's'} not sent: ${userTexts.empty.slice(0, 5).join(', ')}${userTexts.empty.length > 5 ? ', …' : ''}`,
    );
  }
  return { scenario, scenarioText, plan, planIdentity: planIdentity(whole), guard, permit, userTexts };
}
