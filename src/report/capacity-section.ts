/** A run that steps the rate up: each step against its target, and what it shows of capacity (the brief quotes it). */
import type { Summary } from '../judge/index.js';
import { type Capacity, capacityHeadline, capacityOf, first429Sentences, plateauSentence } from './capacity.js';
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
    s.goodputRpm === null ? '—' : s.goodputRpm.toFixed(1),
    ms(s.p50Ms),
    p95Text(s.p95Ms, s.interval),
    s.targetMs === null ? '—' : `< ${ms(s.targetMs)}`,
    s.status === null ? '—' : s.status.toUpperCase(),
    String(s.http429),
    s.ended429 === null ? '—' : `${(s.ended429 * 100).toFixed(1)} %`,
    servedText(s, capacity),
  ]);
  const facts = capacityFacts(summary, capacity, findingTarget(summary));
  return {
    capacity: {
      table: {
        head: [
          'Step',
          'Offered rpm',
          'Goodput (2xx/min)',
          'p50',
          'p95 (95 % interval)',
          'Target p95',
          'p95 verdict',
          '429 answers',
          'Ended with 429',
          'Served',
        ],
        rows,
        numeric: [1, 2, 3, 4, 7, 8],
      },
      lines: facts,
    },
  };
}

/** The timeline's window (model s). */
const windowS = (summary: Summary): number =>
  summary.timeline.length > 1 ? summary.timeline[1]!.startS - summary.timeline[0]!.startS : 10;

/** Whether a step holds: its p95 check passed and its share of 429s is within the one chosen. */
function servedText(s: Capacity['steps'][number], c: Capacity): string {
  if (s.status === null) return '—';
  return s.status === 'pass' && s.ended429 !== null && s.ended429 <= c.judged.max429Share ? 'yes' : 'no';
}

/** Shares as a range in per cent ("55.6–66.7 %"), or one figure when they are all the same. */
function shareRange(shares: readonly number[]): string {
  const [low, high] = [(Math.min(...shares) * 100).toFixed(1), (Math.max(...shares) * 100).toFixed(1)];
  return low === high ? `${low} %` : `${low}–${high} %`;
}

/** What the steps show, sentence by sentence. */
function capacityFacts(summary: Summary, c: Capacity, against: string): string[] {
  const lines = [capacityHeadline(summary)!];
  const plateau = plateauSentence(summary);
  if (plateau !== null) lines.push(plateau);
  lines.push(
    'Latency leaves out the 429s answered at once (a request whose retries all ended in 429 counts); goodput counts the requests answered 2xx, a minute of model time.',
  );
  if (c.firstNotHeld !== null) {
    const s = c.firstNotHeld;
    lines.push(
      `${s.label}, at ${s.fromRpm === s.toRpm ? s.toRpm : `${s.fromRpm}–${s.toRpm}`} requests a minute: p95 ${p95Text(s.p95Ms, s.interval)} against ${ms(s.targetMs)}, ${s.status === 'fail' ? 'over the target' : 'too close to tell'}.`,
    );
  }
  if (c.onset429 === null) lines.push('No answer at any step was a 429.');
  else
    lines.push(
      ...first429Sentences(summary),
      `In the ${windowS(summary)} s window it came in, the offered rate was ${c.onset429.offeredRpm} requests a minute: ${kindsOf429(c.onset429.kinds)}.`,
    );
  const refused = c.steps.filter((s) => (s.ended429 ?? 0) > 0);
  if (refused.length > 0) {
    const shares = refused.map((s) => s.ended429!);
    lines.push(
      `At ${refused.length === 1 ? 'that step' : `the ${refused.length} steps from ${refused[0]!.label} on`}, ${shareRange(shares)} of the requests sent ended with a 429.`,
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
