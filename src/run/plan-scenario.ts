/**
 * A scenario's plan, as every command lays it out: in mode deid, each document is sent as its
 * pieces' requests, so the plan (and the guard, the bands, the envelope) needs the pieces of every
 * document — drawn from the payload's seed, the user's texts read first. A run records them
 * (run.json `documentPieces`), so that a folder can be planned again without the texts.
 */
import { ScenarioError } from '../core/index.js';
import { buildPlan, emptyPlanProblem, type Plan } from '../plan/index.js';
import type { Scenario } from '../scenario/index.js';
import { piecesPerDocument, readUserTexts, type UserTexts } from '../texts/index.js';

interface PlannedScenario {
  readonly plan: Plan;
  /** The user's texts, when `payload.source` names them. */
  readonly userTexts: UserTexts | undefined;
}

export function planScenario(scenario: Scenario, scenarioFile: string, timeScale: number): PlannedScenario {
  const userTexts =
    scenario.payload.source === 'generated' ? undefined : readUserTexts(scenario.payload.source, scenarioFile);
  const plan = buildPlan(scenario, {
    timeScale,
    ...(scenario.mode === 'deid'
      ? { piecesOfNextDocument: piecesPerDocument(scenario.payload, userTexts, 'deid') }
      : {}),
  });
  // A plan of nothing would be judged on nothing: refused here, before any command sends or drafts from it.
  const empty = emptyPlanProblem(plan);
  if (empty !== undefined) throw new ScenarioError(scenarioFile, [empty]);
  return { plan, userTexts };
}

/**
 * The pieces of each document of a deid plan, as run.json keeps them (base64 of 32-bit counts); undefined otherwise.
 */
export function encodeDocumentPieces(plan: Plan): string | undefined {
  const d = plan.documents;
  if (d === undefined) return undefined;
  const pieces = new Uint32Array(d.count);
  for (let i = 0; i < d.count; i++) pieces[i] = d.firstSeq[i + 1]! - d.firstSeq[i]!;
  return Buffer.from(pieces.buffer).toString('base64');
}
