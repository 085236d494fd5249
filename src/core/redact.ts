/** Removes secrets from text before it is printed, logged or written: every occurrence becomes [redacted]. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    // Short strings would redact ordinary words; a real secret or token is long.
    // includes() first: most text holds no secret, and a search allocates nothing (it runs on every line a run writes).
    if (secret !== undefined && secret.length >= 8 && out.includes(secret)) out = out.split(secret).join('[redacted]');
  }
  return out;
}

/** A secret as written, as inside a JSON string and as in a URL or form body. */
const formsOf = (secret: string): string[] => [...new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)])];

/**
 * The secrets of one process (client secret, access tokens), registered as soon as they are known;
 * everything the CLI prints or a run writes passes through `redact`. A second line of defence:
 * no code path is meant to print a secret in the first place. Access tokens are kept to the most
 * recent few: a week-long run renews thousands, and every line written is checked against the mask.
 */
export class SecretMask {
  /** Access tokens kept in the mask: the one in use and those just before it. */
  static readonly RECENT_TOKENS = 8;
  private readonly secrets = new Set<string>();
  private readonly tokens: string[][] = [];
  /** Every form masked, in one list; rebuilt when a secret or token is added. */
  private forms: string[] = [];

  /** A secret for the whole process (the client secret). */
  add(secret: string | undefined): void {
    if (secret === undefined || secret.length < 8) return;
    for (const form of formsOf(secret)) this.secrets.add(form);
    this.forms = [...this.secrets, ...this.tokens.flat()];
  }

  /** An access token: masked until RECENT_TOKENS newer ones have come. */
  addToken(token: string): void {
    if (token.length < 8) return;
    this.tokens.push(formsOf(token));
    if (this.tokens.length > SecretMask.RECENT_TOKENS) this.tokens.shift();
    this.forms = [...this.secrets, ...this.tokens.flat()];
  }

  /** How many forms are masked. */
  get size(): number {
    return this.forms.length;
  }

  redact(text: string): string {
    return this.forms.length === 0 ? text : redact(text, this.forms);
  }
}
