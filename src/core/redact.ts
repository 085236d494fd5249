/**
 * Secrets (client secret, access tokens) out of everything loadproof prints or writes. A server may
 * echo the request (a gateway's error body quoting it, an API echoing the Authorization header), and
 * each layer that then stores the text escapes it again, so a secret is searched in every form it can
 * take on the way: raw; JSON-escaped once and twice (also with non-ASCII as \uXXXX, either hex case, and
 * "/" as "\/"); URL-encoded (%20 or +, either hex case) and form-encoded; base64 and base64url at any
 * alignment (so inside `Basic base64(id:secret)` too); HTML/XML-escaped (also as report.html and
 * junit.xml render it: controls removed or made U+FFFD). Every form becomes [redacted].
 */

import { maskSecretPieces } from './secret-pieces.js';

/** Secrets shorter than this are not masked: they would redact ordinary words; a real secret or token is long. */
export const MIN_SECRET_LENGTH = 8;

/** Replaces every occurrence of each string in `forms` (longest first) by [redacted]. */
function replaceForms(text: string, forms: readonly string[]): string {
  let out = text;
  // includes() first: most text holds no secret, and a search allocates nothing (it runs on every line a run writes).
  for (const form of forms) if (out.includes(form)) out = out.split(form).join('[redacted]');
  return out;
}

/** Removes secrets from text, in every form of {@link secretForms}. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  const forms = secrets.flatMap((s) => (s === undefined ? [] : secretForms(s)));
  return forms.length === 0 ? text : replaceForms(text, longestFirst(forms));
}

const longestFirst = (forms: readonly string[]): string[] => [...new Set(forms)].sort((a, b) => b.length - a.length);

const hex4 = (c: string): string => c.charCodeAt(0).toString(16).padStart(4, '0');
/** Inside a JSON string, as JSON.stringify writes it. */
const jsonInner = (s: string): string => JSON.stringify(s).slice(1, -1);
/** Inside a JSON string, with every non-ASCII UTF-16 unit as \uXXXX (Python's ensure_ascii, Java's). */
const jsonAscii = (s: string): string => jsonInner(s).replace(/[^\u0000-\u007f]/g, (c) => `\\u${hex4(c)}`);
const upperUnicodeEscapes = (s: string): string =>
  s.replace(/\\u([0-9a-f]{4})/g, (_, h: string) => `\\u${h.toUpperCase()}`);
const slashEscaped = (s: string): string => s.replaceAll('/', '\\/');

/** Every way one JSON encoder may write `s` inside a string. */
function jsonOnce(s: string): string[] {
  const plain = jsonInner(s);
  const ascii = jsonAscii(s);
  return [plain, ascii, upperUnicodeEscapes(ascii), slashEscaped(plain), slashEscaped(ascii)];
}

const lowerHex = (s: string): string => s.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase());
/** Percent-encodings: a URL component (%20) and a form body (+), each with upper- and lower-case hex. */
function urlForms(s: string): string[] {
  const component = encodeURIComponent(s);
  const form = new URLSearchParams({ v: s }).toString().slice(2);
  const plus = component.replaceAll('%20', '+');
  return [component, plus, form].flatMap((f) => [f, lowerHex(f)]);
}

/** The XML/HTML escapes a writer may use for & < > " '. */
const ENTITY_SETS: readonly Record<string, string>[] = [
  { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' },
  { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' },
  { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#x27;' },
];
function markupForms(s: string): string[] {
  // As report.html keeps it (controls and bidi removed) and as junit.xml does (XML 1.0's forbidden characters as
  // U+FFFD).
  const variants = [
    s,
    s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g, ''),
    s.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD'),
  ];
  return variants.flatMap((v) => ENTITY_SETS.map((set) => v.replace(/[&<>"']/g, (c) => set[c]!)));
}

/**
 * The base64 characters that depend on `bytes` alone, at each of the three alignments it can have
 * inside a longer encoded string (`id:secret` puts the secret at any offset), in both alphabets.
 */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
      .toString('base64')
      .replace(/=+$/, '');
    const first = Math.ceil((8 * offset) / 6);
    const last = Math.floor((8 * (offset + bytes.length)) / 6); // exclusive: the last full sextet of the secret
    const core = encoded.slice(first, last);
    if (core.length >= MIN_SECRET_LENGTH) cores.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return cores;
}

/** Every form a secret is searched in (see the file's comment); forms shorter than the minimum are left out. */
export function secretForms(secret: string): string[] {
  if (secret.length < MIN_SECRET_LENGTH) return [];
  // Kept to the forms a writer makes (each is searched on every line written): JSON twice is JSON.stringify's
  // over any first escaping, markup is over the raw, once- and twice-escaped text, base64 over the raw and the
  // form-encoded secret (RFC 6749 §2.3.1 form-encodes it before Basic).
  const once = jsonOnce(secret);
  const twice = [...once.map(jsonInner), jsonAscii(jsonInner(secret))];
  const urls = urlForms(secret);
  const markup = [secret, jsonInner(secret), jsonInner(jsonInner(secret))].flatMap(markupForms);
  const base64 = [secret, new URLSearchParams({ v: secret }).toString().slice(2)].flatMap((f) =>
    base64Cores(Buffer.from(f, 'utf8')),
  );
  const forms = [secret, ...once, ...twice, ...urls, ...markup, ...base64];
  return longestFirst(forms.filter((f) => f.length >= MIN_SECRET_LENGTH));
}

/** The masks of the commands in progress: every file written goes through all of them ({@link redactWritten}). */
const active = new Set<SecretMask>();

/**
 * Masks `text` with the secrets of every command in progress in this process. The one writer of files
 * (src/run-folder/write.ts) calls it on everything it writes, so a new output file cannot bypass the mask.
 */
export function redactWritten(text: string): string {
  let out = text;
  for (const mask of active) out = mask.redact(out);
  return out;
}

/**
 * The secrets of one command (client secret, access tokens), registered as soon as they are known;
 * everything the CLI prints (src/cli/io.ts) and every file written (redactWritten) passes through it.
 * A second line of defence: no code path is meant to print a secret in the first place, and server
 * text that may echo the request is masked where it enters. Access tokens are kept to the most
 * recent few: a week-long run renews thousands, and every line written is checked against the mask.
 * `close()` when the command ends.
 */
export class SecretMask {
  /** Access tokens kept in the mask: the one in use and those just before it. */
  static readonly RECENT_TOKENS = 8;
  private readonly secrets = new Set<string>();
  private readonly tokens: string[][] = [];
  /** The client secret and the recent tokens as they are, for {@link redactPieces}. */
  private readonly rawSecrets: string[] = [];
  private readonly rawTokens: string[] = [];
  /** Every form masked, in one list, longest first; rebuilt when a secret or token is added. */
  private forms: string[] = [];

  /** A secret for the whole command (the client secret). */
  add(secret: string | undefined): void {
    if (secret === undefined || secret.length < MIN_SECRET_LENGTH) return;
    for (const form of secretForms(secret)) this.secrets.add(form);
    if (!this.rawSecrets.includes(secret)) this.rawSecrets.push(secret);
    this.rebuild();
  }

  /** An access token: masked until RECENT_TOKENS newer ones have come. */
  addToken(token: string): void {
    if (token.length < MIN_SECRET_LENGTH) return;
    this.tokens.push(secretForms(token));
    this.rawTokens.push(token);
    if (this.tokens.length > SecretMask.RECENT_TOKENS) {
      this.tokens.shift();
      this.rawTokens.shift();
    }
    this.rebuild();
  }

  /** The command has ended: its files are written, they no longer need its secrets. */
  close(): void {
    active.delete(this);
  }

  private rebuild(): void {
    this.forms = longestFirst([...this.secrets, ...this.tokens.flat()]);
    active.add(this);
  }

  /** The length of the longest form masked (0 when none): what a text cut short may end with the start of. */
  get longestForm(): number {
    return this.forms[0]?.length ?? 0;
  }

  /** How many forms are masked. */
  get size(): number {
    return this.forms.length;
  }

  redact(text: string): string {
    return this.forms.length === 0 ? text : replaceForms(text, this.forms);
  }

  /**
   * `text` masked, and any piece of a secret or recent token left in it too (at least MIN_SECRET_LENGTH characters of
   * one): for server text that may quote a secret in halves. Meant for text made canonical first (canonicalText).
   */
  redactPieces(text: string): string {
    return maskSecretPieces(this.redact(text), [...this.rawSecrets, ...this.rawTokens], MIN_SECRET_LENGTH);
  }
}
