import { describeValue } from '../core/index.js';

/** A key printed as it is: letters, digits and `_ . $ -` (so `__proto__` and `a.b` read as written). */
const PLAIN_KEY = /^[\w.$-]{1,60}$/;

/**
 * `a.b[0].c` from a path, for messages. Any other key (escape codes, bidi controls, spaces, a long
 * one) is shown quoted, escaped and cut: `["\u001b[31mred"]`, so a message cannot act on a terminal.
 */
export function toDotPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && PLAIN_KEY.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${describeValue(String(key))}]`;
  }
  return out === '' ? '(top level)' : out;
}
