/**
 * brief.md's name and the line that names its manifest: written after manifest.json (so not listed in it), and read
 * back by `loadproof verify`, which checks that the hash it names is the manifest's.
 */
import { UsageError } from '../core/index.js';

export const BRIEF_FILE = 'brief.md';

/** How brief.md names its manifest's hash, before the hash in a `code` span. */
export const BRIEF_MANIFEST_LINE = 'Manifest (manifest.json) SHA-256:';

/** `--brief-client-id`: a client_id as a brief may name it — printable, on one line, bounded; else exit 2. */
export function parseBriefClientId(value: string): string {
  if (value.length === 0 || value.length > 200 || !/^[\x21-\x7e]+$/.test(value))
    throw new UsageError(
      `--brief-client-id: expected the client_id, 1 to 200 printable characters without spaces, got ${value.length === 0 ? 'an empty value' : `${value.length} characters${/^[\x20-\x7e]*$/.test(value) ? ` (${JSON.stringify(value.slice(0, 40))})` : ' with a control, space or non-ASCII character'}`}`,
      'nothing was sent or written',
    );
  return value;
}

/** The hash brief.md names, as it writes it (`Manifest (manifest.json) SHA-256: \`<hex>\``); null when none. */
export function briefManifestSha256(text: string): string | null {
  return /^Manifest \(manifest\.json\) SHA-256: `([0-9a-f]{64})`$/m.exec(text)?.[1] ?? null;
}
