/**
 * Scenario file → a plain value, bounded: at most 1 MiB read (checked before parsing, and never
 * more read than that), YAML aliases bounded, nesting bounded, and every failure of a parser a
 * ScenarioError that shows no text of the file (it may hold a secret).
 */
import { open } from 'node:fs/promises';
import { extname } from 'node:path';

import { type Document, isMap, isScalar, isSeq, parseDocument } from 'yaml';

import { firstInvalidUtf8, ScenarioError } from '../core/index.js';
import { SCENARIO_BOUNDS as B } from './bounds.js';
import { toDotPath } from './dot-path.js';
import { jsonErrorOffset, lineAndColumn } from './json-position.js';
import { DECIMAL, DECIMAL_FORM } from './number.js';

const TOO_BIG = (got: string): string => `(file): expected at most 1 MiB (${B.fileBytes} bytes), got ${got}`;
const EMPTY = '(file): empty; expected a scenario (name, description, phases)';

/** The file's text, refused when its size (or, for a device that reports none, what it yields) is over the bound. */
export async function readScenarioText(file: string): Promise<string> {
  const cannotRead = (error: unknown): ScenarioError =>
    new ScenarioError(file, [
      `(file): cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).name})`,
    ]);
  const handle = await open(file, 'r').catch((error: unknown) => {
    throw cannotRead(error);
  });
  try {
    const { size } = await handle.stat();
    if (size > B.fileBytes) throw new ScenarioError(file, [TOO_BIG(`${size} bytes`)]);
    // Read one byte past the bound, whatever the size said: /dev/zero says 0 and never ends.
    const buffer = Buffer.alloc(B.fileBytes + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > B.fileBytes) throw new ScenarioError(file, [TOO_BIG('more')]);
    }
    const bytes = buffer.subarray(0, length);
    const problem = notUtf8(bytes);
    if (problem !== null) throw new ScenarioError(file, [problem]);
    return bytes.toString('utf8');
  } catch (error) {
    throw error instanceof ScenarioError ? error : cannotRead(error);
  } finally {
    await handle.close();
  }
}

const SAVE_AS_UTF8 = 'expected a UTF-8 text file (a UTF-8 byte-order mark is fine): save it as UTF-8';

/** Where a byte offset is, for a person with an editor: line and column (in bytes), 1-based. */
function position(bytes: Uint8Array, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (bytes[i] === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return `byte offset ${offset} (line ${line}, column ${offset - lineStart + 1})`;
}

/**
 * Why bytes are not a UTF-8 scenario, or null. Decoding them anyway would turn each bad byte into U+FFFD and
 * parse a file other than the one written. The byte's value is not shown (the file may hold a secret).
 */
function notUtf8(bytes: Uint8Array): string | null {
  const bom = (...b: number[]): boolean => b.every((x, i) => bytes[i] === x);
  const utf16or32 = bom(0xff, 0xfe, 0, 0)
    ? 'UTF-32LE'
    : bom(0, 0, 0xfe, 0xff)
      ? 'UTF-32BE'
      : bom(0xff, 0xfe)
        ? 'UTF-16LE'
        : bom(0xfe, 0xff)
          ? 'UTF-16BE'
          : undefined;
  if (utf16or32 !== undefined)
    return `(file): ${utf16or32} text (its byte-order mark at byte offset 0), not UTF-8; ${SAVE_AS_UTF8}`;
  const invalid = firstInvalidUtf8(bytes);
  // NUL is UTF-8, but no text file holds it: UTF-16 without a byte-order mark looks like this. The first problem is
  // said.
  const nul = bytes.indexOf(0);
  if (nul >= 0 && (invalid < 0 || nul < invalid))
    return `(file): a NUL byte at ${position(bytes, nul)}: not text (UTF-16 without a byte-order mark?); ${SAVE_AS_UTF8}`;
  if (invalid >= 0)
    return `(file): not UTF-8: the byte at ${position(bytes, invalid)} is not valid UTF-8; ${SAVE_AS_UTF8}`;
  return null;
}

/** Parses scenario text as JSON (a `.json` file) or YAML; `file` names it in messages. */
export function parseScenarioText(text: string, file: string): unknown {
  const bytes = Buffer.byteLength(text);
  if (bytes > B.fileBytes) throw new ScenarioError(file, [TOO_BIG(`${bytes} bytes`)]);
  const body = text.replace(/^\uFEFF/, ''); // a byte-order mark some editors write
  if (body.trim() === '') throw new ScenarioError(file, [EMPTY]);
  const raw = extname(file).toLowerCase() === '.json' ? parseJson(body, file) : parseYaml(body, file);
  if (raw === null || raw === undefined) throw new ScenarioError(file, [EMPTY]);
  const deep = tooDeep(raw, 0);
  if (deep !== undefined) {
    throw new ScenarioError(file, [
      `(file): expected at most ${B.nestingLevels} levels of nesting (lists and mappings inside one another), got more${deep === '' ? '' : ` under ${deep}`}`,
    ]);
  }
  const numbers = numbersNotDecimal(parseDocument(body, { uniqueKeys: false }));
  if (numbers.length > 0) throw new ScenarioError(file, numbers);
  return raw;
}

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Not V8's message: it quotes the text around the error, which may be a secret.
    const offset = jsonErrorOffset(text);
    if (offset < 0) throw new ScenarioError(file, ['(file): not valid JSON']);
    const { line, column } = lineAndColumn(text, offset);
    throw new ScenarioError(file, [
      `(file): not valid JSON at line ${line}, column ${column}${offset >= text.length ? ' (end of file)' : ''}`,
    ]);
  }
}

function parseYaml(text: string, file: string): unknown {
  let doc: ReturnType<typeof parseDocument>;
  try {
    doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  } catch {
    throw new ScenarioError(file, ['(file): not valid YAML (the parser gave up)']);
  }
  // By position and kind only: the parser's messages may quote the file (an anchor's name, a line).
  if (doc.errors.length > 0) {
    throw new ScenarioError(
      file,
      doc.errors.map((e) => {
        const at = e.linePos?.[0];
        return `(file): not valid YAML${at === undefined ? '' : ` at line ${at.line}, column ${at.col}`} (${e.code.toLowerCase().replaceAll('_', ' ')})`;
      }),
    );
  }
  try {
    return doc.toJS({ maxAliasCount: B.yamlAliasNodes });
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    if (message.startsWith('Excessive alias count')) {
      throw new ScenarioError(file, [
        `(file): expected YAML aliases to expand to at most ${B.yamlAliasNodes} nodes (a guard against "billion laughs" files), got more`,
      ]);
    }
    if (message.startsWith('Unresolved alias'))
      throw new ScenarioError(file, ['(file): not valid YAML: an alias (*name) refers to no anchor (&name) before it']);
    throw new ScenarioError(file, ['(file): not valid YAML (the parser gave up)']);
  }
}

/** YAML and JSON spellings of a number that is not infinite or NaN (their fields say those are not finite). */
const NOT_FINITE = /^[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)$/;

/**
 * Numbers written otherwise than in decimal (0x10, 0o17, 1e3, +5, .5), by field: YAML reads them all as
 * numbers and JSON takes exponents, but a scenario has one grammar for numbers (number.ts). JSON is read
 * as YAML here (it is YAML 1.2) for the number's own text and its field. At most 20 are named.
 */
function numbersNotDecimal(doc: Document): string[] {
  const found: string[] = [];
  const walk = (node: unknown, path: (string | number)[], depth: number): void => {
    if (found.length >= 20 || depth > B.nestingLevels + 1) return;
    if (isMap(node))
      for (const pair of node.items)
        walk(pair.value, [...path, String(isScalar(pair.key) ? pair.key.value : pair.key)], depth + 1);
    else if (isSeq(node)) node.items.forEach((item, i) => walk(item, [...path, i], depth + 1));
    else if (isScalar(node) && typeof node.value === 'number') {
      const text = node.source ?? String(node.value);
      if (!DECIMAL.test(text) && !NOT_FINITE.test(text))
        found.push(
          `${path.length === 0 ? '(top level)' : toDotPath(path)}: expected a decimal number, ${DECIMAL_FORM}, got ${text}`,
        );
    }
  };
  walk(doc.contents, [], 0);
  return found;
}

/**
 * Whether `value` nests lists and mappings more than the bound deep (the top level is level 0), and
 * if so the top-level field it happens under, escaped ('' for none). Recursion stops at the bound.
 */
function tooDeep(value: unknown, level: number): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (level > B.nestingLevels) return '';
  for (const [key, child] of Object.entries(value)) {
    if (tooDeep(child, level + 1) !== undefined) return level === 0 && !Array.isArray(value) ? toDotPath([key]) : '';
  }
  return undefined;
}
