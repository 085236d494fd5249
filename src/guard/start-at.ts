/**
 * `--at`: when a planned run would start. An ISO date-time with a zone (Z or ±hh:mm), or a date
 * alone meaning 00:00 UTC. A local time without a zone is refused: the notice rule counts days
 * in UTC, and a guess at the zone could turn a refusal into an allowance.
 */
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

export type StartAt = { readonly ms: number } | { readonly problem: string };

export function parseStartAt(text: string): StartAt {
  const value = text.trim();
  const parts = DATE.exec(value) ?? DATE_TIME.exec(value);
  const expected = 'expected an ISO date-time with a zone, like 2026-12-07T09:00:00Z or 2026-12-07T10:00:00+01:00, or a date (00:00 UTC)';
  if (parts === null) {
    const naive = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value);
    return { problem: `--at: ${expected}, got "${text}"${naive ? ' (no zone: add Z for UTC or an offset like +01:00)' : ''}` };
  }
  const [y, mo, d, h = '0', mi = '0', s = '0'] = parts.slice(1).map((p) => p ?? undefined) as string[];
  const fields = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)] as const;
  const check = new Date(Date.UTC(...fields));
  // Date.parse rolls 2026-02-30 over to March; a date that does not exist is a typo.
  if (check.getUTCMonth() !== fields[1] || check.getUTCDate() !== fields[2] || fields[3] > 23 || fields[4] > 59 || fields[5] > 59) {
    return { problem: `--at: "${text}" is not a real date and time; ${expected}` };
  }
  return { ms: DATE.test(value) ? check.getTime() : Date.parse(value) };
}
