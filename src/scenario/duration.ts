/** Durations as people write them in scenario files: "500ms", "90s", "5m", "1h", "1m30s". */

const UNITS = ['h', 'm', 's', 'ms'] as const;
const UNIT_MS = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 } as const;
const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;

/** The grammar, for messages. */
export const DURATION_FORM =
  'decimal amounts, each unit (h, m, s, ms) at most once and largest first, a point only in the last';

/**
 * Milliseconds of a duration string, or undefined when it is not one; Infinity when its digits overflow (callers
 * bound it). One grammar: "90s", "1.5s", "1m30s", "1h2m3s4ms"; never "1s1s", "30s1m" or "1.5m30s", which
 * add up to something nobody wrote.
 */
export function parseDurationMs(text: string): number | undefined {
  if (!DURATION.test(text)) return undefined;
  let total = 0;
  let last = -1;
  const parts = [...text.matchAll(PART)];
  for (const [i, [, amount, unit]] of parts.entries()) {
    const rank = UNITS.indexOf(unit as (typeof UNITS)[number]);
    if (rank <= last) return undefined;
    if (amount!.includes('.') && i < parts.length - 1) return undefined;
    last = rank;
    total += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  }
  return total;
}

/**
 * A short human form of a duration: 90000 → "1m30s", 1500 → "1.5s". Rounded to what it shows before it is split into
 * units, so a carry goes up a unit (599.6 s → "10m", never "9m60s").
 */
export function formatDuration(ms: number): string {
  if (Math.round(ms) < 1000) return `${Math.round(ms)}ms`;
  const tenths = Math.round(ms / 100);
  if (tenths < 600) return `${tenths / 10}s`;
  const total = Math.round(ms / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  return `${hours > 0 ? `${hours}h` : ''}${minutes > 0 ? `${minutes}m` : ''}${seconds > 0 ? `${seconds}s` : ''}`;
}
