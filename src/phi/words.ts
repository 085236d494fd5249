/**
 * Words of a text as recall compares them: runs of letters, marks and digits, in NFC (a service may answer an NFD
 * input in NFC, and "José" must stay the same word).
 */

const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const WORD_CHARACTER = /[\p{L}\p{M}\p{N}]/u;

/** A word of a text, with its UTF-16 span in that text. */
interface Word {
  readonly word: string;
  readonly start: number;
  readonly end: number;
}

export function wordsIn(text: string): Word[] {
  return [...text.matchAll(WORD)].map((m) => ({ word: m[0], start: m.index, end: m.index + m[0].length }));
}

/** The NFC form, case-folded when `fold`. */
export function comparable(text: string, fold: boolean): string {
  const nfc = text.normalize('NFC');
  return fold ? nfc.toLowerCase() : nfc;
}

/** `text.slice(start, end)` neither starts inside a word nor ends inside one. */
export function standsAlone(text: string, start: number, end: number): boolean {
  const joins = (a: string | undefined, b: string | undefined): boolean =>
    a !== undefined && b !== undefined && WORD_CHARACTER.test(a) && WORD_CHARACTER.test(b);
  return !joins(text[start - 1], text[start]) && !joins(text[end - 1], text[end]);
}

/** `value` occurs in `text` as whole words. */
export function occursAlone(text: string, value: string): boolean {
  if (value === '') return false;
  for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + 1)) {
    if (standsAlone(text, at, at + value.length)) return true;
  }
  return false;
}
