/** Durations as people write them in scenario files: "500ms", "90s", "5m", "1h", "1m30s". */

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;

/** Milliseconds of a duration string, or undefined when it is not one; Infinity when its digits overflow (callers bound it). */
export function parseDurationMs(text: string): number | undefined {
  const compact = text.trim();
  if (!DURATION.test(compact)) return undefined;
  let total = 0;
  for (const [, amount, unit] of compact.matchAll(PART)) total += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  return total;
}

/** A short human form of a duration: 90000 → "1m30s", 1500 → "1.5s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(1))}s`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${hours > 0 ? `${hours}h` : ''}${minutes > 0 ? `${minutes}m` : ''}${seconds > 0 ? `${seconds}s` : ''}`;
}
