/** Removes secrets from text before it is printed, logged or written: every occurrence becomes [redacted]. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    // Short strings would redact ordinary words; a real secret or token is long.
    if (secret !== undefined && secret.length >= 8) out = out.split(secret).join('[redacted]');
  }
  return out;
}
