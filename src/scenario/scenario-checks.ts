/** The checks of a scenario across its fields, once each field is valid on its own. */
import type * as z from 'zod';

import { maxCharactersFor } from '../spec/index.js';
import { formatCount, SCENARIO_BOUNDS as B } from './bounds.js';
import { formatDuration, parseDurationMs } from './duration.js';
import type { PhaseSchema } from './phase-schema.js';
import { parseThreshold } from './threshold.js';

type ThresholdList = readonly (string | { readonly threshold: string })[];

/** What the checks read of a scenario. */
interface CheckedScenario {
  readonly phases: readonly z.output<typeof PhaseSchema>[];
  readonly window: string;
  readonly mode: string;
  readonly payload: { readonly split: { readonly maxTokens: number; readonly margin: number } };
  readonly thresholds: { readonly all: ThresholdList; readonly byPhase: ReadonlyMap<string, ThresholdList> };
}

/**
 * Phase names unique, every byPhase key a phase, pieces long enough for the chain's seams, stages only in
 * mode deid, and a plan of bounded size.
 */
export function checkScenario(scenario: CheckedScenario, ctx: z.RefinementCtx): void {
  const seen = new Map<string, number>();
  scenario.phases.forEach((phase, i) => {
    const first = seen.get(phase.name);
    if (first !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['phases', i, 'name'],
        message: `"${phase.name}" is already the name of phases[${first}]`,
      });
    else seen.set(phase.name, i);
  });
  for (const name of scenario.thresholds.byPhase.keys()) {
    if (!seen.has(name))
      ctx.addIssue({ code: 'custom', path: ['thresholds', 'byPhase', name], message: `no phase is named "${name}"` });
  }
  // The chain's seams need pieces at least twice their reach (src/texts/seams.ts: 128 characters).
  const pieceChars = maxCharactersFor(
    Math.floor(scenario.payload.split.maxTokens * (1 - scenario.payload.split.margin)),
  );
  if (scenario.mode === 'deid' && pieceChars < 256) {
    ctx.addIssue({
      code: 'custom',
      path: ['payload', 'split'],
      message: `expected pieces of at least 256 characters in mode deid (room for the seams that find an entity straddling a cut), got ${pieceChars}`,
    });
  }
  // A threshold on the obfuscation or document stage needs the chain.
  if (scenario.mode !== 'deid') {
    const lists: [(string | number)[], ThresholdList][] = [
      [['thresholds', 'all'], scenario.thresholds.all],
      ...[...scenario.thresholds.byPhase].map(([name, list]): [(string | number)[], typeof list] => [
        ['thresholds', 'byPhase', name],
        list,
      ]),
    ];
    for (const [path, list] of lists) {
      list.forEach((item, i) => {
        const text = typeof item === 'string' ? item : item.threshold;
        const parsed = parseThreshold(text);
        if (!('problem' in parsed) && parsed.stage !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [...path, i],
            message: `expected a threshold without a stage: the ${parsed.stage} stage is only in mode deid`,
          });
        }
      });
    }
  }
  checkPlanSize(scenario, ctx);
}

/**
 * The plan's size, from the phases alone, before any arrival is generated: the requests it plans
 * (a phase plans ⌈Λ⌉ = ⌈(fromRpm + toRpm) / 2 × its minutes⌉) and the timeline windows it needs.
 */
function checkPlanSize(
  scenario: { phases: readonly z.output<typeof PhaseSchema>[]; window: string },
  ctx: z.RefinementCtx,
): void {
  let total = 0;
  let totalMs = 0;
  let most = { index: 0, requests: -1 };
  scenario.phases.forEach((phase, index) => {
    const ms = parseDurationMs(phase.duration) ?? 0;
    // Halves first: (1e308 + 1e308) / 2 would be Infinity.
    const requests = Math.ceil(
      ((phase.rpm ?? phase.fromRpm ?? 0) / 2 + (phase.rpm ?? phase.toRpm ?? 0) / 2) * (ms / 60_000) - 1e-9,
    );
    total += requests;
    totalMs += ms;
    if (requests > most.requests) most = { index, requests };
  });
  if (total > B.plannedRequests) {
    const name = scenario.phases[most.index]!.name;
    ctx.addIssue({
      code: 'custom',
      path: ['phases'],
      message: `expected at most ${formatCount(B.plannedRequests)} planned requests in all, got ${formatCount(total)} (phases[${most.index}] "${name}" plans the most: ${formatCount(most.requests)}); lower a rate or a duration`,
    });
  }
  const windowMs = parseDurationMs(scenario.window) ?? 0;
  if (windowMs > 0 && totalMs / windowMs > B.windows) {
    const minimumMs = Math.ceil(totalMs / B.windows / 1000) * 1000;
    ctx.addIssue({
      code: 'custom',
      path: ['window'],
      // The window may be the default, which the file does not show: say which.
      message: `expected at most ${formatCount(B.windows)} windows over the plan's ${formatDuration(totalMs)} (a window of at least ${formatDuration(minimumMs)} for this plan), got "${scenario.window}"`,
    });
  }
}
