/**
 * The "top errors" sample against a server that echoes the client secret and the access token in forms a literal
 * search does not know: split by an invisible character (which the sample shows as a space, so the secret reads
 * whole), every character as a JSON \u escape, every byte percent-encoded, every character an HTML numeric entity.
 * A reader of summary.json, report.md, events.ndjson or the terminal must not be able to read either back.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';
import { type ErrorAnswer, type ErrorServer, startErrorServer } from '../helpers/error-server.js';
import { scenarioAt } from '../helpers/reconcile.js';

const SECRET = 'S3cr3tVal-xyz_Q9';
const ENV = { LOADPROOF_CLIENT_ID: 'forms-client', LOADPROOF_CLIENT_SECRET: SECRET };

const allJsonEscapes = (s: string): string =>
  Array.from(s, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
const allPercent = (s: string): string =>
  Array.from(Buffer.from(s), (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
const allEntities = (s: string): string => Array.from(s, (c) => `&#${c.charCodeAt(0)};`).join('');
const splitInvisibly = (s: string): string => `${s.slice(0, 6)}\u200b${s.slice(6)}`;

const FORMS: readonly ((s: string) => string)[] = [splitInvisibly, allJsonEscapes, allPercent, allEntities];

/** Request seq: the secret (even) or the token (odd), in form seq/2 % 4, each a group of its own. */
function answer(seq: number, token: string): ErrorAnswer {
  const form = FORMS[Math.floor(seq / 2) % FORMS.length]!;
  const value = seq % 2 === 0 ? SECRET : token;
  return { status: 500, body: `{"error":"internal_error","form${seq % 8}":"${form(value)}"}` };
}

let server: ErrorServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** What a reader recovers from a sample: escapes decoded, invisible characters and spaces dropped. */
const decoded = (text: string): string =>
  text
    .replace(/\\\\u/g, '\\u')
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/(%[0-9A-Fa-f]{2})+/g, (m) => {
      try {
        return decodeURIComponent(m);
      } catch {
        return m;
      }
    })
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCharCode(Number(d)))
    .replace(/[\s\u200b]/g, '');

describe('top errors: a secret echoed in an unusual form is not readable in the sample', () => {
  it('split by an invisible character, all \\u escapes, all percent-encoded, all entities: masked', async () => {
    server = await startErrorServer(answer);
    const ws = scenarioAt(server.url, '  - { name: errs, duration: 8s, rpm: 120 }\n', 'timeout: 2s\n');
    const space = scenarioWorkspace(ws);
    const run = await runMain(['run', space.file, '--out', space.out, '--no-charts'], ENV);
    const dir = join(space.out, runFolders(space.out)[0]!);
    const texts: [string, string][] = [
      ['stdout', run.stdout],
      ['stderr', run.stderr],
      ['summary.json', readFileSync(join(dir, 'summary.json'), 'utf8')],
      ['events.ndjson', readFileSync(join(dir, 'events.ndjson'), 'utf8')],
      ['report.md', readFileSync(join(dir, 'report.md'), 'utf8')],
    ];
    // The sample shows a secret in full when it reads as one once decoded; the groups are there to be read.
    expect(texts[3]![1]).toContain('"sample"');
    for (const [name, text] of texts)
      for (const secret of [SECRET, ...server.issued])
        expect(decoded(text).includes(secret), `${name} holds ${secret} in a decodable form`).toBe(false);
  }, 90_000);
});
