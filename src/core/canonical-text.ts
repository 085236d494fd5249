/**
 * Text as a reader would read it once decoded: invisible characters dropped, and JSON `\u` escapes, HTML/XML entities
 * and percent-encoding decoded, again until nothing changes (a few rounds at most). A secret a server echoes split by
 * a zero-width character, or fully escaped or encoded, then reads as itself, and a mask over this form catches it.
 */

/** Format characters (zero-width, bidi, BOM, soft hyphen, word joiner), the grapheme joiner, variation selectors. */
const INVISIBLE = /[\p{Cf}\u034f\ufe00-\ufe0f]/gu;
/** A JSON `\uXXXX`, its backslash escaped again any number of times (a JSON string inside a JSON string). */
const UNICODE_ESCAPE = /\\+u([0-9a-fA-F]{4})/g;
const NUMERIC_ENTITY = /&#(?:[xX]([0-9a-fA-F]{1,6})|([0-9]{1,7}));?/g;
const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};
const NAMED_ENTITY = /&(amp|lt|gt|quot|apos|nbsp);/gi;
const PERCENT_RUN = /(?:%[0-9a-fA-F]{2})+/g;
/** Each round undoes one layer of encoding; a text encoded more often than this keeps its outer layers. */
const MAX_ROUNDS = 4;

/** A code point as a string, or the text it was written as when it is none. */
const codePoint = (n: number, written: string): string => (n <= 0x10ffff ? String.fromCodePoint(n) : written);

/** Percent-encoded bytes as UTF-8 (a byte that is no character is U+FFFD). */
const percentDecoded = (run: string): string =>
  Buffer.from(
    run
      .split('%')
      .slice(1)
      .map((h) => parseInt(h, 16)),
  ).toString('utf8');

function decodedOnce(text: string): string {
  return text
    .replace(INVISIBLE, '')
    .replace(UNICODE_ESCAPE, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(NUMERIC_ENTITY, (m, hex: string | undefined, dec: string | undefined) =>
      codePoint(hex === undefined ? Number(dec) : parseInt(hex, 16), m),
    )
    .replace(NAMED_ENTITY, (_, name: string) => NAMED_ENTITIES[name.toLowerCase()]!)
    .replace(PERCENT_RUN, percentDecoded);
}

/** `text` decoded (see the file's comment), invisible characters dropped. */
export function canonicalText(text: string): string {
  let out = text;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const next = decodedOnce(out);
    if (next === out) return out;
    out = next;
  }
  return out.replace(INVISIBLE, '');
}
