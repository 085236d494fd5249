/**
 * The one grammar of numbers in a scenario, wherever they are written (a YAML or JSON number, a threshold's
 * value, the amounts of a duration): decimal digits with at most one point, a minus sign where a field may
 * be negative. No hex (0x10), octal (0o17), exponent (1e3), leading + or bare point (.5, 5.): each is a
 * typo or a trick as often as a number, and a scenario is evidence.
 */

/** A decimal number, optionally negative. */
export const DECIMAL = /^-?\d+(?:\.\d+)?$/;

/** A non-negative decimal: what thresholds and durations take. */
const UNSIGNED_DECIMAL = /^\d+(?:\.\d+)?$/;

export const DECIMAL_FORM = 'digits with at most one decimal point (no hex, octal, exponent, + sign or bare point)';

/** The value of an unsigned decimal, or undefined for any other spelling (Number() would take "0x10", " 1 ", ""). */
export function parseDecimal(text: string): number | undefined {
  return UNSIGNED_DECIMAL.test(text) ? Number(text) : undefined;
}

const DECIMAL_TEXT = new Intl.NumberFormat('en-US', { useGrouping: false, maximumSignificantDigits: 15 });

/** A number as a scenario spells it (decimal, never an exponent): 1e-10 reads 0.0000000001. */
export function formatDecimal(value: number): string {
  return DECIMAL_TEXT.format(value);
}
