/**
 * `--at`: when a planned run would start. An ISO date-time with a zone (Z or ±hh:mm), or a date
 * alone meaning 00:00 UTC. A local time without a zone is refused: the notice rule counts days
 * in UTC, and a guess at the zone could turn a refusal into an allowance. Years run from 1970 to
 * 9999 and offsets up to ±23:59 (ISO 8601), so no date is quietly moved (Date.UTC reads year 0 as 1900).
 */
import { echoValue } from '../core/index.js';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|([+-])(\d{2}):(\d{2}))$/i;

/** The years `--at` accepts. */
const START_AT_YEARS = { min: 1970, max: 9999 } as const;

type StartAt = { readonly ms: number } | { readonly problem: string };

/** `flag`: the option named in a problem (`--at`, or `run --start-at`). */
export function parseStartAt(text: string, flag = '--at'): StartAt {
  const value = text.trim();
  // Echoed escaped: a CR or LF in it must not move the cursor or fake a line of loadproof's own.
  const shown = echoValue(text);
  const parts = DATE.exec(value) ?? DATE_TIME.exec(value);
  const expected =
    'expected an ISO date-time with a zone, like 2026-12-07T09:00:00Z or 2026-12-07T10:00:00+01:00, or a date (00:00 UTC)';
  if (parts === null) {
    const naive = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value);
    return {
      problem: `${flag}: ${expected}, got "${shown}"${naive ? ' (no zone: add Z for UTC or an offset like +01:00)' : ''}`,
    };
  }
  const n = (i: number): number => Number(parts[i] ?? 0);
  const [y, mo, d, h, mi, s, fraction, offH, offM] = [n(1), n(2), n(3), n(4), n(5), n(6), n(7), n(10), n(11)];
  if (y < START_AT_YEARS.min || y > START_AT_YEARS.max) {
    return { problem: `${flag}: expected a year from ${START_AT_YEARS.min} to ${START_AT_YEARS.max}, got "${shown}"` };
  }
  if (offH > 23 || offM > 59)
    return { problem: `${flag}: expected a zone offset from -23:59 to +23:59, got "${shown}"` };
  const utc = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(utc);
  // Date.UTC rolls 2026-02-30 over to March; a date that does not exist is a typo.
  if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) {
    return { problem: `${flag}: "${shown}" is not a real date and time; ${expected}` };
  }
  const offsetMs = (parts[9] === '-' ? -1 : 1) * (offH * 60 + offM) * 60_000;
  return { ms: utc + Math.round(fraction * 1000) - offsetMs };
}
