/** The body as a JSON object, or undefined when it is not one (a malformed or non-object body). */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Printable ASCII but `"` and `\`: such a text is a JSON string as it is, in quotes, one byte per character. */
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * `{"text": text}` as JSON, and its length in bytes: the identification request's body. Exactly
 * JSON.stringify's output; a plain ASCII text (the generated notes are) skips the serialiser and the
 * UTF-8 count, which run once per request.
 */
export function textBody(text: string): { readonly body: string; readonly bytes: number } {
  if (PLAIN_ASCII.test(text)) return { body: `{"text":"${text}"}`, bytes: text.length + 11 };
  const body = JSON.stringify({ text });
  return { body, bytes: Buffer.byteLength(body) };
}

/**
 * {@link textBody}'s body as UTF-8 bytes, encoded once per request: its attempts copy them, and the text is read once
 * (not flattened and encoded again with each attempt's head).
 */
export function textBodyBytes(text: string): Buffer {
  if (!PLAIN_ASCII.test(text)) return Buffer.from(textBody(text).body);
  const bytes = Buffer.allocUnsafe(text.length + 11);
  bytes.write('{"text":"', 0, 'latin1');
  bytes.write(text, 9, 'latin1');
  bytes.write('"}', text.length + 9, 'latin1');
  return bytes;
}
