/**
 * Pieces of secrets in a text: every run of it made of substrings of at least `length` characters of a secret becomes
 * [redacted]. A server may echo half a secret, or one split by a space; each long half is caught.
 */

/** Marks where in `text` a `length`-character substring of `secret` occurs; whether it found any. */
function markPieces(text: string, secret: string, length: number, covered: Uint8Array): boolean {
  let found = false;
  for (let i = 0; i + length <= secret.length; i++) {
    const piece = secret.slice(i, i + length);
    for (let at = text.indexOf(piece); at !== -1; at = text.indexOf(piece, at + 1)) {
      covered.fill(1, at, at + length);
      found = true;
    }
  }
  return found;
}

/** `text` with every piece of a secret (at least `length` characters of one) made [redacted]. */
export function maskSecretPieces(text: string, secrets: readonly string[], length: number): string {
  const covered = new Uint8Array(text.length);
  let found = false;
  for (const secret of secrets) found = markPieces(text, secret, length, covered) || found;
  if (!found) return text;
  let out = '';
  for (let i = 0; i < text.length;) {
    if (covered[i] === 1) {
      while (i < text.length && covered[i] === 1) i++;
      out += '[redacted]';
    } else out += text[i++];
  }
  return out;
}
