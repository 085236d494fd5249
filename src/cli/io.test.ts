import { describe, expect, it } from 'vitest';

import { SecretMask } from '../core/redact.js';
import { printable, terminalText } from './io.js';

describe('terminalText: what may reach a terminal', () => {
  it('escapes ESC sequences (colour, OSC 52 clipboard, clear screen), C1 controls, bidi and format characters, lone CR, U+2028', () => {
    expect(terminalText('a\x1b[31mred\x1b]52;c;aGk=\x07\x1b[2J\u009b1m\u0085\u202e\u2066\u200f\r\x08\x7f\u2028z')).toBe(
      'a\\u001b[31mred\\u001b]52;c;aGk=\\u0007\\u001b[2J\\u009b1m\\u0085\\u202e\\u2066\\u200f\\u000d\\u0008\\u007f\\u2028z',
    );
  });

  it("keeps the tool's own newlines, tabs, CR LF, and the progress line's erase at the start of a write", () => {
    expect(terminalText('a\tb\nc\r\nd')).toBe('a\tb\nc\r\nd');
    expect(terminalText('\r\x1b[2Kprogress')).toBe('\r\x1b[2Kprogress');
    // Anywhere else, the same bytes are escaped.
    expect(terminalText('x\r\x1b[2Ky')).toBe('x\\u000d\\u001b[2Ky');
  });

  it('writes a character beyond U+FFFF as its two UTF-16 escapes, so printed JSON stays valid with the same meaning', () => {
    const json = JSON.stringify({ text: 'tag\u{E0001}\u202e "x"' });
    const shown = terminalText(json);
    expect(shown).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    expect(JSON.parse(shown)).toEqual(JSON.parse(json));
  });

  it('leaves ordinary text alone (non-ASCII, emoji, symbols the tool prints)', () => {
    const text = 'p95 ≤ 2.5s — ✔ → µs é 中 😀';
    expect(terminalText(text)).toBe(text);
  });
});

describe('printable: masks secrets, then escapes', () => {
  it('a secret with a control character is masked, not shown escaped', () => {
    const mask = new SecretMask();
    mask.add('secret\x01value');
    expect(printable(mask, 'x secret\x01value \x1b y')).toBe('x [redacted] \\u001b y');
  });
});
