/**
 * Who a finding is against, in words. The judge's reasons speak of "the service"; a run against a mock says nothing of
 * it, so there they say "the mock": summary.json, the terminal and every report word it alike.
 */
import type { TargetKind } from '../scenario/index.js';

interface Targeted {
  readonly target: { readonly kind: TargetKind };
}

/** The service when the run reached it (a tunnel included), else the mock it ran against. */
export const findingTarget = (run: Targeted): string => (run.target.kind === 'real' ? 'the service' : 'the mock');

/** A reason or note in the words of what the target was. */
export const inTargetWords = (run: Targeted, text: string): string =>
  run.target.kind === 'real' ? text : text.replaceAll('against the service', `against ${findingTarget(run)}`);
