import { describe, expect, it } from 'vitest';

import { firstInvalidUtf8 } from './utf8.js';

const at = (...bytes: number[]): number => firstInvalidUtf8(Uint8Array.from(bytes));

describe('firstInvalidUtf8', () => {
  it('finds nothing in well-formed UTF-8, whatever its planes', () => {
    expect(firstInvalidUtf8(Buffer.from('name: é ü 中 😀 \u{10FFFF}', 'utf8'))).toBe(-1);
    expect(at()).toBe(-1);
  });

  it.each([
    ['a Latin-1 é', [0x61, 0x3a, 0x20, 0xe9, 0x0a], 3],
    ['a lone continuation byte', [0x61, 0x80], 1],
    ['an overlong slash (C0 AF)', [0x61, 0xc0, 0xaf], 1],
    ['an overlong 3-byte form (E0 80 AF)', [0xe0, 0x80, 0xaf], 0],
    ['a surrogate (ED A0 80)', [0x41, 0xed, 0xa0, 0x80], 1],
    ['above U+10FFFF (F4 90 80 80)', [0xf4, 0x90, 0x80, 0x80], 0],
    ['F5', [0xf5, 0x80, 0x80, 0x80], 0],
    ['FF', [0x41, 0x42, 0xff], 2],
    ['a truncated sequence at the end', [0x41, 0xe4, 0xb8], 1],
    ['a sequence cut by ASCII', [0xe4, 0x41, 0x80], 0],
    ['a UTF-16LE byte-order mark', [0xff, 0xfe, 0x6e, 0x00], 0],
  ])('finds %s', (_what, bytes, offset) => {
    expect(at(...bytes)).toBe(offset);
    // The same answer as the WHATWG decoder on whether the bytes are valid.
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes))).toThrow();
  });
});
