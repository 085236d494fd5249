/** A run that steps the rate up: each step against its target, and what it shows of capacity (the brief quotes it). */
import { formatDuration } from '../scenario/index.js';
import { type Capacity, capacityOf, total429 } from './capacity.js';
import type { ReportContent, ReportInput } from './content-types.js';
import { kindsOf429, ms, p95Text } from './figure-text.js';
import { findingTarget } from './target-text.js';

export function capacitySections(input: ReportInput): Pick<ReportContent, 'capacity'> {
  const { summary } = input;
  const capacity = capacityOf(summary);
  if (capacity === undefined) return {};
  const rows = capacity.steps.map((s) => [
    s.label,
    s.fromRpm === s.toRpm ? String(s.toRpm) : `${s.fromRpm}→${s.toRpm}`,
    ms(s.p50Ms),
    p95Text(s.p95Ms, s.interval),
    s.targetMs === null ? '—' : `< ${ms(s.targetMs)}`,
    s.status === null ? '—' : s.status.toUpperCase(),
    String(total429(s.answers429)),
    s.ended429 === null ? '—' : `${(s.ended429 * 100).toFixed(1)} %`,
  ]);
  const facts = capacityFacts(capacity, findingTarget(summary));
  return {
    capacity: {
      table: {
        head: [
          'Step',
          'Offered rpm',
          'p50',
          'p95 (95 % interval)',
          'Target p95',
          'p95 verdict',
          '429 answers',
          'Ended with 429',
        ],
        rows,
        numeric: [1, 2, 3, 6, 7],
      },
      lines: facts,
    },
  };
}

/** What the steps show, sentence by sentence. */
function capacityFacts(c: Capacity, against: string): string[] {
  const lines: string[] = [];
  const heldStep = c.steps.filter((s) => s.status === 'pass' && s.toRpm === c.heldUpToRpm).at(-1);
  lines.push(
    c.heldUpToRpm === null
      ? 'No step had its p95 interval under its documented target.'
      : `The highest offered rate whose p95 was under its documented target, with its 95 % interval under it too: ${c.heldUpToRpm} requests a minute (${heldStep?.label ?? ''}). Latency counts the answers other than 429: a step whose requests were refused says so in the last columns.`,
  );
  if (c.firstNotHeld !== null) {
    const s = c.firstNotHeld;
    lines.push(
      `${s.label}, at ${s.fromRpm === s.toRpm ? s.toRpm : `${s.fromRpm}–${s.toRpm}`} requests a minute: p95 ${p95Text(s.p95Ms, s.interval)} against ${ms(s.targetMs)}, ${s.status === 'fail' ? 'over the target' : 'too close to tell'}.`,
    );
  }
  lines.push(
    c.onset429 === null
      ? 'No answer at any step was a 429.'
      : `The first 429 came ${formatDuration(c.onset429.startS * 1000)} into the run${c.onset429.phase === null ? '' : `, in ${c.onset429.phase}`}, at an offered rate of ${c.onset429.offeredRpm} requests a minute: ${kindsOf429(c.onset429.kinds)}.`,
  );
  const refused = c.steps.filter((s) => (s.ended429 ?? 0) > 0);
  if (refused.length > 0) {
    const shares = refused.map((s) => s.ended429!);
    lines.push(
      `At ${refused.length === 1 ? 'that step' : `the ${refused.length} steps from ${refused[0]!.label} on`}, ${(Math.min(...shares) * 100).toFixed(1)}–${(Math.max(...shares) * 100).toFixed(1)} % of the requests sent ended with a 429.`,
    );
  }
  if (c.onset429 !== null)
    lines.push(
      c.findings === 0
        ? `None of the 429s came on a request the documented limits clearly allow, ${c.startAssumption}.`
        : `${c.findings} 429s came on requests the documented limits clearly allow, ${c.startAssumption}: a finding against ${against}.`,
    );
  return lines;
}
