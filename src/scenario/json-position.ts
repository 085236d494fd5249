/**
 * Where JSON text stops being JSON, for a message that names a line and a column and quotes nothing
 * (V8's JSON.parse message quotes the text around the error, which may be a secret). A small
 * RFC 8259 scanner, without recursion, run only once JSON.parse has refused the text.
 */

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

/**
 * Offset of the first character of `text` that cannot continue JSON; `text.length` when it ends too soon, -1 when it is
 * JSON.
 */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const stack: ('{' | '[')[] = [];
  // What may come next: a value, a key (or `}` right after `{`), or what follows a value.
  let expect: 'value' | 'firstValue' | 'key' | 'firstKey' | 'after' = 'value';
  for (;;) {
    while (i < text.length && WHITESPACE.has(text[i]!)) i += 1;
    const c = text[i];
    if (expect === 'after') {
      const top = stack.at(-1);
      if (top === undefined) return c === undefined ? -1 : i;
      if (c === ',') expect = top === '{' ? 'key' : 'value';
      else if (c !== (top === '{' ? '}' : ']')) return i;
      else stack.pop();
      i += 1;
    } else if (expect === 'key' || expect === 'firstKey') {
      if (expect === 'firstKey' && c === '}') {
        stack.pop();
        i += 1;
        expect = 'after';
        continue;
      }
      if (c !== '"') return i;
      const end = stringEnd(text, i);
      if (end < 0) return -end - 1;
      i = end;
      while (i < text.length && WHITESPACE.has(text[i]!)) i += 1;
      if (text[i] !== ':') return i;
      i += 1;
      expect = 'value';
    } else {
      if (expect === 'firstValue' && c === ']') {
        stack.pop();
        i += 1;
        expect = 'after';
        continue;
      }
      if (c === '{' || c === '[') {
        stack.push(c);
        i += 1;
        expect = c === '{' ? 'firstKey' : 'firstValue';
        continue;
      }
      const end = c === '"' ? stringEnd(text, i) : scalarEnd(text, i);
      if (end < 0) return -end - 1;
      i = end;
      expect = 'after';
    }
  }
}

/** The offset after the string starting at `start`, or −(offset of the error) − 1. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') return i + 1;
    if (c < ' ') return -i - 1;
    if (c === '\\') {
      ESCAPE.lastIndex = i;
      if (!ESCAPE.test(text)) return -i - 1;
      i = ESCAPE.lastIndex;
    } else i += 1;
  }
  return -text.length - 1;
}

/** The offset after the number or literal at `start`, or −start − 1 when there is none. */
function scalarEnd(text: string, start: number): number {
  for (const word of ['true', 'false', 'null']) if (text.startsWith(word, start)) return start + word.length;
  NUMBER.lastIndex = start;
  return NUMBER.test(text) ? NUMBER.lastIndex : -start - 1;
}

/** 1-based line and column of `offset` in `text`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lastNewline = before.lastIndexOf('\n');
  return { line: before.split('\n').length, column: offset - lastNewline };
}
