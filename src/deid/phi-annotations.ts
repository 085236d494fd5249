/**
 * `deid --expect <file>`: the PHI a document is known to hold, as `{text, kind}` annotations in a JSON array or one
 * per line (NDJSON). Read and checked before anything is sent; every problem names the file, the item, the field,
 * the value and what was expected. An annotation's own text is never quoted in a message: it is PHI.
 */
import { UsageError } from '../core/index.js';
import { isPhiKind, PHI_KINDS, type PhiAnnotation } from '../phi/index.js';
import { HAS_LETTER_OR_DIGIT, readRegularText, shownKind } from '../texts/index.js';

/** A list of what one document holds, not a data set. */
const MAX_ANNOTATIONS = 10_000;
const MAX_BYTES = 4 * 1024 * 1024;

const refuse = (message: string): UsageError =>
  new UsageError(message, 'nothing was sent; --expect takes a JSON array, or NDJSON, of {"text": …, "kind": …}');

/** The annotations of `path`, checked; a UsageError (exit 2) naming the first problem. */
export async function readPhiAnnotations(path: string): Promise<PhiAnnotation[]> {
  const read = readRegularText(path, path, { maxBytes: MAX_BYTES });
  if ('tooLarge' in read) throw refuse(`${path}: ${read.tooLarge} bytes; expected at most ${MAX_BYTES}`);
  if ('problem' in read) throw refuse(`--expect: ${read.problem}`);
  const text = read.text.replace(/^\uFEFF/, '');
  const items = text.trimStart().startsWith('[') ? arrayItems(path, text) : lineItems(path, text);
  if (items.length === 0) throw refuse(`${path}: no annotation; expected at least one {"text", "kind"}`);
  if (items.length > MAX_ANNOTATIONS)
    throw refuse(`${path}: ${items.length} annotations; expected at most ${MAX_ANNOTATIONS} for one document`);
  return items.map(({ where, value }) => annotation(`${path} ${where}`, value));
}

interface RawItem {
  /** `item n` of an array, `line n` of NDJSON. */
  readonly where: string;
  readonly value: unknown;
}

function arrayItems(path: string, text: string): RawItem[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not the parser's message: it quotes the text around the error, which is PHI.
    throw refuse(`${path}: not valid JSON; expected an array of {"text", "kind"}`);
  }
  if (!Array.isArray(parsed)) throw refuse(`${path}: expected a JSON array`);
  return parsed.map((value, i) => ({ where: `item ${i + 1}`, value }));
}

function lineItems(path: string, text: string): RawItem[] {
  const items: RawItem[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    try {
      items.push({ where: `line ${i + 1}`, value: JSON.parse(line) });
    } catch {
      throw refuse(`${path} line ${i + 1}: not valid JSON; expected one {"text", "kind"} object a line`);
    }
  }
  return items;
}

function annotation(where: string, value: unknown): PhiAnnotation {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw refuse(`${where}: expected an object {"text", "kind"}, got ${typeOf(value)}`);
  const { text, kind } = value as { text?: unknown; kind?: unknown };
  if (typeof text !== 'string' || text.trim() === '')
    throw refuse(
      `${where}: text: expected a non-empty string, got ${typeof text === 'string' ? 'an empty one' : typeOf(text)}`,
    );
  if (!HAS_LETTER_OR_DIGIT.test(text))
    throw refuse(`${where}: text: expected PHI, with a letter or digit, got ${text.length} characters of neither`);
  if (!isPhiKind(kind)) throw refuse(`${where}: kind: expected one of ${PHI_KINDS.join(', ')}; got ${shownKind(kind)}`);
  return { text, kind };
}

/** What a value is, without quoting it (it may be PHI). */
function typeOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `a string of ${value.length} characters`;
  return `a ${typeof value}`;
}
