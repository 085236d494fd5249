/**
 * The rates of a comparison (429s, 504s, other failures): Fisher's exact test per phase, Holm's correction over them
 * all.
 */
import type { ComparedPhase } from './compare-phase.js';
import type { Figure, Finding, RateFigure, SideFigures } from './comparison.js';
import { fisherGreater } from './fisher.js';

const RATE_NAMES: Record<Exclude<Figure, 'p95'>, string> = {
  http429: '429 rate',
  http504: '504 rate',
  errors: 'rate of other failures',
};

const percent = (r: RateFigure): string =>
  `${r.of === 0 ? '—' : ((100 * r.count) / r.of).toFixed(2)} % (${r.count} of ${r.of})`;

interface RateTest {
  readonly phase: number;
  readonly figure: Exclude<Figure, 'p95'>;
  readonly kind: Finding['kind'];
  readonly p: number;
  readonly text: string;
}

/** Each phase's three rates, both ways: Fisher's exact test, one-sided. */
function rateTests(phase: number, base: SideFigures, run: SideFigures): RateTest[] {
  return (['http429', 'http504', 'errors'] as const).flatMap((figure) => {
    const b = base.rates[figure];
    const r = run.rates[figure];
    const what = `${RATE_NAMES[figure]} ${percent(r)} against ${percent(b)}`;
    return [
      {
        phase,
        figure,
        kind: 'regression' as const,
        p: fisherGreater(b.count, b.of, r.count, r.of),
        text: `${what}: higher than chance explains`,
      },
      {
        phase,
        figure,
        kind: 'improvement' as const,
        p: fisherGreater(r.count, r.of, b.count, b.of),
        text: `${what}: lower than chance explains`,
      },
    ];
  });
}

/** Holm's step-down over one direction's tests: those rejected at family-wise level `alpha`. */
function holm(tests: readonly RateTest[], alpha: number): RateTest[] {
  const sorted = [...tests].sort((a, b) => a.p - b.p);
  const rejected: RateTest[] = [];
  for (const [i, t] of sorted.entries()) {
    if (t.p >= alpha / (sorted.length - i)) break;
    rejected.push(t);
  }
  return rejected;
}

/**
 * Adds each phase's clear rate changes to its findings. The rates of every phase are one family: Holm's correction
 * keeps the chance of any false alarm under alpha.
 */
export function addRateFindings(compared: readonly ComparedPhase[], alpha: number): void {
  const tests = compared.flatMap((c, i) => rateTests(i, c.base, c.run));
  const family = tests.length / 2;
  for (const kind of ['regression', 'improvement'] as const) {
    for (const t of holm(
      tests.filter((x) => x.kind === kind),
      alpha,
    )) {
      compared[t.phase]!.findings.push({
        figure: t.figure,
        kind,
        text: `${t.text} (Fisher's exact test, one-sided p = ${t.p.toPrecision(2)}; Holm's correction over ${family} rates, family-wise ${alpha})`,
      });
    }
  }
}
