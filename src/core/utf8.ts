/**
 * Where bytes stop being UTF-8, as the Unicode standard (table 3-7) and the WHATWG decoder define it: no
 * overlong forms, no surrogates (ED A0..BF), nothing above U+10FFFF, no truncated sequence at the end.
 */
import { isUtf8 } from 'node:buffer';

/** The offset of the first byte that is not part of well-formed UTF-8, or -1 when all of them are. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  if (isUtf8(bytes)) return -1;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    // The length of the sequence, and the range its second byte must be in (the rest are 80..BF).
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) length = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      length = 3;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      length = 4;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k < length; k++) {
      const c = bytes[i + k];
      // A sequence cut short or broken is invalid from its first byte (the decoder's U+FFFD stands there).
      if (c === undefined || (k === 1 ? c < low || c > high : c < 0x80 || c > 0xbf)) return i;
    }
    i += length;
  }
  return -1;
}
