/**
 * Advance-notice arithmetic, in UTC: a notice announced on a day counts from 00:00 UTC of that
 * day, so "at least 14 days" means the run starts at or after 00:00 UTC fourteen days later.
 */
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/** 00:00 UTC of an ISO date (YYYY-MM-DD). */
function utcMidnightMs(isoDate: string): number {
  const [y, m, d] = isoDate.split('-').map(Number) as [number, number, number];
  return Date.UTC(y, m - 1, d);
}

/** The earliest run start allowed by a notice announced on `announcedOn`, given `days` of notice. */
export function earliestStartMs(announcedOn: string, days: number): number {
  return utcMidnightMs(announcedOn) + days * DAY_MS;
}

/** The latest announcement day (YYYY-MM-DD, UTC) that allows a run starting at `startMs`. */
export function latestAnnouncementDay(startMs: number, days: number): string {
  return new Date(Math.floor((startMs - days * DAY_MS) / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

/** A span as days, hours and minutes ("13 days 23 hours", "1 hour", "45 minutes"): the two largest units. */
export function formatSpanInWords(ms: number): string {
  const parts: string[] = [];
  const units: [number, string][] = [
    [DAY_MS, 'day'],
    [HOUR_MS, 'hour'],
    [MINUTE_MS, 'minute'],
  ];
  let rest = Math.max(0, ms);
  for (const [size, name] of units) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 && parts.length < 2) parts.push(`${n} ${name}${n === 1 ? '' : 's'}`);
    else if (parts.length > 0) break;
  }
  return parts.length > 0 ? parts.join(' ') : 'less than a minute';
}

/** An instant as ISO 8601 UTC, whole seconds without their `.000`: 2026-11-20T09:00:00Z. */
export function formatInstant(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** Days as a decimal, for messages: 0.0417 days for an hour. */
export function formatDays(ms: number): string {
  const days = ms / DAY_MS;
  return `${Number(days.toFixed(days < 1 ? 2 : 1))} day${days === 1 ? '' : 's'}`;
}

export { DAY_MS };
