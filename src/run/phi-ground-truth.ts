/**
 * A `phi.` threshold needs ground truth: generated documents carry theirs; a user's texts only when they are
 * annotated (each text's `phi`). Without any, the threshold could never be decided: refused before anything is sent.
 */
import { ScenarioError } from '../core/index.js';
import type { Scenario } from '../scenario/index.js';
import type { UserTexts } from '../texts/index.js';

export function checkPhiGroundTruth(scenario: Scenario, userTexts: UserTexts | undefined, file: string): void {
  if (scenario.mode !== 'deid' || userTexts === undefined) return;
  const annotated = userTexts.documents.some((d) => (d as { readonly phi?: unknown }).phi !== undefined);
  if (annotated) return;
  const lists = [
    ['thresholds.all', scenario.thresholds.all] as const,
    ...[...scenario.thresholds.byPhase].map(([name, list]) => [`thresholds.byPhase.${name}`, list] as const),
  ];
  const problems = lists.flatMap(([path, list]) =>
    list.flatMap((t, i) =>
      t.kind === 'phi'
        ? [
            `${path}[${i}]: "${t.source.trim()}" needs texts whose PHI is known, but none of payload.source's ${userTexts.documents.length} texts is annotated: without ground truth, what identification missed cannot be known (annotate the texts, or use generated documents)`,
          ]
        : [],
    ),
  );
  if (problems.length > 0) throw new ScenarioError(file, problems);
}
