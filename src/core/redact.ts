/** Removes secrets from text before it is printed, logged or written: every occurrence becomes [redacted]. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    // Short strings would redact ordinary words; a real secret or token is long.
    if (secret !== undefined && secret.length >= 8) out = out.split(secret).join('[redacted]');
  }
  return out;
}

/**
 * The secrets of one process (client secret, access tokens), registered as soon as they are known;
 * everything the CLI prints or a run writes passes through `redact`. A second line of defence:
 * no code path is meant to print a secret in the first place.
 */
export class SecretMask {
  private readonly forms = new Set<string>();

  add(secret: string | undefined): void {
    if (secret === undefined || secret.length < 8) return;
    // As written, as inside a JSON string and as in a URL or form body.
    for (const form of [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)]) this.forms.add(form);
  }

  redact(text: string): string {
    return this.forms.size === 0 ? text : redact(text, [...this.forms]);
  }
}
