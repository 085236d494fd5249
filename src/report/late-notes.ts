/**
 * The judge's notes on late phases (src/judge/verdict.ts: one a phase whose generator broke its accuracy budget),
 * folded under one sentence: nine long lines of a capacity-step run on a busy machine say one thing. The report and
 * the terminal fold them alike.
 */
import { plural } from './figure-text.js';

const LATE_NOTE = /^phase (.+?): the generator was late \(/;

interface FoldedNotes {
  /** The notes other than the late phases', as they were. */
  readonly others: readonly string[];
  /** One sentence for every late phase, and their notes as its detail; null when the generator kept its schedule. */
  readonly lateness: { readonly summary: string; readonly lines: readonly string[] } | null;
}

export function foldLateNotes(notes: readonly string[]): FoldedNotes {
  const lateNotes = notes.filter((n) => LATE_NOTE.test(n));
  const others = notes.filter((n) => !LATE_NOTE.test(n));
  if (lateNotes.length === 0) return { others, lateness: null };
  const phases = lateNotes.map((n) => LATE_NOTE.exec(n)![1]!);
  const named =
    phases.length <= 3 ? phases.join(', ') : `${phases.slice(0, 3).join(', ')} and ${phases.length - 3} more`;
  return {
    others,
    lateness: {
      summary: `The generator fell behind its own schedule in ${plural(phases.length, 'phase')} (${named}): results its lateness could have caused were checked again on service time or made inconclusive, never counted as a finding.`,
      lines: lateNotes,
    },
  };
}
