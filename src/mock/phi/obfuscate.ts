/**
 * The obfuscation transform: replaces each given entity span by a tag naming its type
 * (`[NAME]`) or by a mask of the same length (`*****`). Input is validated field by field, and
 * every problem is reported with its path, the value and what was expected.
 */

type ObfuscationStyle = 'tag' | 'mask';
const OBFUSCATION_STYLES: readonly ObfuscationStyle[] = ['tag', 'mask'];

interface EntitySpan {
  readonly type: string;
  readonly start: number;
  readonly end: number;
}

interface Replacement {
  readonly type: string;
  /** Span in the input text. */
  readonly start: number;
  readonly end: number;
  /** Span of the replacement in the output text. */
  readonly outputStart: number;
  readonly outputEnd: number;
  readonly replacement: string;
}

interface ObfuscationResult {
  readonly text: string;
  readonly style: ObfuscationStyle;
  readonly replacements: readonly Replacement[];
}

interface ObfuscationRequest {
  readonly text: string;
  readonly entities: readonly EntitySpan[];
  readonly style: ObfuscationStyle;
}

/** Most entity spans in one obfuscation request (it bounds the request body, see the route). */
const MAX_OBFUSCATION_ENTITIES = 10_000;

const describe = (value: unknown): string => (value === undefined ? 'nothing' : JSON.stringify(value));

/** Whether a UTF-16 `offset` falls between the two halves of a surrogate pair (one character). */
function splitsSurrogatePair(text: string, offset: number): boolean {
  const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
  const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;
  return offset > 0 && offset < text.length && isHigh(text.charCodeAt(offset - 1)) && isLow(text.charCodeAt(offset));
}

/** Checks a parsed JSON body; returns the request, or the list of problems found. */
export function parseObfuscationRequest(body: unknown): ObfuscationRequest | { problems: string[] } {
  const problems: string[] = [];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { problems: [`body: expected a JSON object, got ${describe(body)}`] };
  }
  const { text, entities, style = 'tag' } = body as Record<string, unknown>;
  if (typeof text !== 'string') problems.push(`text: expected a string, got ${describe(text)}`);
  if (!OBFUSCATION_STYLES.includes(style as ObfuscationStyle)) {
    problems.push(`style: expected one of ${OBFUSCATION_STYLES.join(', ')}, got ${describe(style)}`);
  }
  if (!Array.isArray(entities)) {
    problems.push(`entities: expected an array of {type, start, end}, got ${describe(entities)}`);
    return { problems };
  }
  if (entities.length > MAX_OBFUSCATION_ENTITIES) {
    problems.push(`entities: expected at most ${MAX_OBFUSCATION_ENTITIES} entities, got ${entities.length}`);
    return { problems };
  }
  const length = typeof text === 'string' ? text.length : Number.POSITIVE_INFINITY;
  const spans: EntitySpan[] = [];
  entities.forEach((raw: unknown, i) => {
    const at = `entities[${i}]`;
    if (typeof raw !== 'object' || raw === null) {
      problems.push(`${at}: expected an object {type, start, end}, got ${describe(raw)}`);
      return;
    }
    const { type, start, end } = raw as Record<string, unknown>;
    if (typeof type !== 'string' || type.length === 0)
      problems.push(`${at}.type: expected a non-empty string, got ${describe(type)}`);
    if (!Number.isInteger(start) || (start as number) < 0 || (start as number) >= length) {
      problems.push(`${at}.start: expected an integer in [0, text length), got ${describe(start)}`);
    } else if (!Number.isInteger(end) || (end as number) <= (start as number) || (end as number) > length) {
      problems.push(`${at}.end: expected an integer in (start, text length], got ${describe(end)}`);
    } else {
      const split = [['start', start as number] as const, ['end', end as number] as const].filter(
        ([, offset]) => typeof text === 'string' && splitsSurrogatePair(text, offset),
      );
      for (const [name, offset] of split) {
        problems.push(
          `${at}.${name}: offset ${offset} splits a surrogate pair (one character outside the BMP, such as an emoji); expected an offset on a character boundary`,
        );
      }
      if (split.length === 0 && typeof type === 'string')
        spans.push({ type, start: start as number, end: end as number });
    }
  });
  spans.sort((a, b) => a.start - b.start);
  for (let i = 1; i < spans.length; i++) {
    if (spans[i]!.start < spans[i - 1]!.end) {
      problems.push(
        `entities: spans overlap at offsets ${spans[i - 1]!.start}–${spans[i - 1]!.end} and ${spans[i]!.start}–${spans[i]!.end}`,
      );
    }
  }
  if (problems.length > 0) return { problems };
  return { text: text as string, entities: spans, style: style as ObfuscationStyle };
}

/** Applies the replacements; spans must be sorted and non-overlapping (parseObfuscationRequest ensures it). */
export function obfuscate(request: ObfuscationRequest): ObfuscationResult {
  const parts: string[] = [];
  const replacements: Replacement[] = [];
  let cursor = 0;
  let outputLength = 0;
  for (const span of request.entities) {
    const before = request.text.slice(cursor, span.start);
    parts.push(before);
    outputLength += before.length;
    const replacement = request.style === 'tag' ? `[${span.type.toUpperCase()}]` : '*'.repeat(span.end - span.start);
    parts.push(replacement);
    replacements.push({
      type: span.type,
      start: span.start,
      end: span.end,
      outputStart: outputLength,
      outputEnd: outputLength + replacement.length,
      replacement,
    });
    outputLength += replacement.length;
    cursor = span.end;
  }
  parts.push(request.text.slice(cursor));
  return { text: parts.join(''), style: request.style, replacements };
}
