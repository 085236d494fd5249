/**
 * What a user says a text holds: a list of `{text, kind}` annotations, on an NDJSON line of `payload.source`
 * (its `phi` field); `deid --expect` reads its own file (src/deid/phi-annotations.ts) by the same rules. Checked
 * before anything is sent; a problem names where it is, the field, the value and what was expected — never an
 * annotation's text (it is PHI): an annotation is named by its place in the list and its kind.
 */
import {
  isPhiKind,
  locateAnnotations,
  PHI_KINDS,
  type PhiAnnotation,
  type PhiKind,
  type PlantedPhi,
} from '../phi/index.js';

/** The most annotations one text may carry: a sample's ground truth, not a data set. */
const MAX_ANNOTATIONS = 10_000;

/** The annotations in `value` (the `phi` field, named `field`), or the problems with it. */
function parseAnnotations(
  value: unknown,
  field: string,
): { readonly annotations: PhiAnnotation[] } | { readonly problems: string[] } {
  if (!Array.isArray(value)) return { problems: [`${field}: expected a list of {text, kind}, got ${shape(value)}`] };
  if (value.length > MAX_ANNOTATIONS)
    return { problems: [`${field}: ${value.length} annotations; expected at most ${MAX_ANNOTATIONS}`] };
  const problems: string[] = [];
  const annotations: PhiAnnotation[] = [];
  value.forEach((item: unknown, i) => {
    const checked = checkAnnotation(item, `${field}[${i}]`);
    if (Array.isArray(checked)) problems.push(...checked);
    else annotations.push(checked);
  });
  return problems.length > 0 ? { problems } : { annotations };
}

/** One `{text, kind}` (named `at` in a problem), or its problems. */
function checkAnnotation(item: unknown, at: string): PhiAnnotation | string[] {
  if (typeof item !== 'object' || item === null || Array.isArray(item))
    return [`${at}: expected an object {text, kind}, got ${shape(item)}`];
  const { text, kind } = item as { text?: unknown; kind?: unknown };
  const problems: string[] = [];
  if (typeof text !== 'string' || text.trim() === '')
    problems.push(`${at}.text: expected a non-empty string (the PHI as it is written), got ${shape(text)}`);
  else if (!HAS_LETTER_OR_DIGIT.test(text))
    problems.push(`${at}.text: expected PHI, with a letter or digit, got ${text.length} characters of neither`);
  if (!isPhiKind(kind))
    problems.push(`${at}.kind: ${shownKind(kind)} is not a kind of PHI; expected one of ${PHI_KINDS.join(', ')}`);
  return problems.length > 0 ? problems : { text: text as string, kind: kind as PhiKind };
}

/** The annotations as spans of `text`, or a problem for each annotation the text does not hold. */
function annotationSpans(
  text: string,
  annotations: readonly PhiAnnotation[],
  field: string,
): { readonly phi: PlantedPhi[] } | { readonly problems: string[] } {
  const { planted, missing } = locateAnnotations(text, annotations);
  if (missing.length === 0) return { phi: planted };
  return {
    problems: missing.map((m) => {
      const i = annotations.indexOf(m);
      return `${field}[${i}] (${m.kind}, ${m.text.length} characters): not in the text; expected an annotation's text to appear in it as whole words`;
    }),
  };
}

/** A line's `phi` field as spans of its text (undefined without the field), or its problems. */
export function lineAnnotations(
  text: string,
  field: unknown,
  name: string,
): { readonly phi: readonly PlantedPhi[] | undefined } | { readonly problems: string[] } {
  if (field === undefined) return { phi: undefined };
  const parsed = parseAnnotations(field, name);
  return 'problems' in parsed ? parsed : annotationSpans(text, parsed.annotations, name);
}

/** An annotation with neither would match every hyphen or full stop of a text, and count it removed. */
export const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * A kind as given, for a message: quoted only when it looks like a kind's name (capitals and _, short); else its shape
 * — a text and kind swapped would put the PHI in the message.
 */
export function shownKind(value: unknown): string {
  if (typeof value === 'string' && /^[A-Z_]{1,20}$/.test(value)) return JSON.stringify(value);
  return value === undefined ? 'nothing' : shape(value);
}

/** A value's shape for a message, never its content. */
function shape(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'string' ? (value.trim() === '' ? 'an empty string' : 'a string') : `a ${typeof value}`;
}
