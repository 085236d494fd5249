/**
 * The layering of src/ (shared/STYLE.md §5): each folder may import only the folders listed for
 * it. Above all the mock shares nothing with the engine but the spec's numbers, so it cannot
 * agree with the client by accident.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

/** Folder → folders it may import from (besides itself). `cli` may import anything. */
const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  spec: [],
  lexicon: [],
  corpus: ['core', 'lexicon', 'spec'],
  chunk: ['core', 'spec'],
  mock: ['core', 'spec', 'lexicon', 'corpus'],
  scenario: ['core', 'spec', 'mock', 'corpus'],
  payload: ['core', 'spec', 'corpus', 'chunk'],
  deid: ['core', 'spec', 'chunk', 'client'],
  preflight: ['core', 'spec', 'chunk', 'client', 'deid', 'run', 'scenario', 'mock', 'guard', 'plan', 'payload'],
  merge: ['core', 'judge', 'plan', 'recorder', 'report', 'run', 'scenario'],
  metrics: ['core', 'judge', 'plan'],
  probe: ['core', 'spec', 'client', 'corpus', 'deid', 'guard', 'judge', 'mock', 'plan', 'preflight', 'recorder', 'run', 'scenario'],
  plan: ['core', 'spec', 'scenario'],
  client: ['core', 'spec'],
  engine: ['core', 'client', 'plan'],
  recorder: ['core'],
  verdict: ['core', 'spec', 'recorder', 'scenario'],
  guard: ['core', 'spec', 'scenario', 'plan'],
  credentials: ['core'],
  judge: ['core', 'spec', 'scenario', 'plan', 'guard', 'recorder', 'verdict', 'payload'],
  run: ['core', 'spec', 'scenario', 'plan', 'guard', 'credentials', 'client', 'engine', 'recorder', 'verdict', 'judge', 'mock', 'corpus', 'compare', 'payload', 'chunk', 'deid', 'metrics'],
  compare: ['core', 'recorder', 'verdict', 'judge'],
  report: ['core', 'scenario', 'plan', 'recorder', 'judge', 'run', 'compare'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const folderOf = (file: string): string => relative(SRC, file).split(/[\\/]/)[0]!;

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/from '(\.[^']+)'/g)].map((m) => folderOf(resolve(dirname(file), m[1]!)));
}

describe('src/ layering', () => {
  const files = sourceFiles(SRC);

  it('finds the source files', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it.each(Object.keys(ALLOWED))('%s imports only what it may', (folder) => {
    const violations = files
      .filter((f) => folderOf(f) === folder)
      .flatMap((f) => importsOf(f).filter((to) => to !== folder && !ALLOWED[folder]!.includes(to)).map((to) => `${relative(SRC, f)} → ${to}`));
    expect(violations).toEqual([]);
  });

  // Issue 27 case 1: only the guard issues the permit every send needs (src/core/send-permit.ts).
  it('only the guard makes a send permit', () => {
    const makers = files.filter((f) => /\bissueSendPermit\b|\bas SendPermit\b|<SendPermit>/.test(readFileSync(f, 'utf8'))).map((f) => relative(SRC, f));
    expect(makers.filter((f) => !f.startsWith('guard/') && f !== join('core', 'send-permit.ts'))).toEqual([]);
    expect(makers).toContain(join('guard', 'permit.ts'));
  });

  // Everything that can open a connection is one of these: the sending ones take a SendPermit (checked on entry),
  // the others only listen. A new module with a network API fails here until it is classified.
  it('only the permit-taking senders and the listening servers use a network API', () => {
    const NETWORK_MODULE = /^import\s+(?!type\s)([^;]*?)\s+from\s+'(?:node:)?(?:http|https|net|tls|http2|dgram|undici|autocannon)'/gm;
    // Type-only imports open nothing, and neither do node:net's address checks (isIP, isIPv4, isIPv6).
    const ADDRESS_CHECKS_ONLY = /^\{\s*(?:isIP(?:v4|v6)?\s*,?\s*)+\}$/;
    const usesNetwork = (text: string): boolean => /\bfetch\(/.test(text) || [...text.matchAll(NETWORK_MODULE)].some((m) => !ADDRESS_CHECKS_ONLY.test(m[1]!.trim()));
    const users = files.filter((f) => usesNetwork(readFileSync(f, 'utf8'))).map((f) => relative(SRC, f).split(/[\\/]/).join('/'));
    const sending = ['client/small-request.ts', 'client/http1/connection.ts', 'probe/probe.ts'];
    const listening = (f: string): boolean => f.startsWith('mock/') || f === 'metrics/server.ts' || f === 'run/warm-up.ts';
    expect(users).toEqual(expect.arrayContaining([...sending, 'metrics/server.ts']));
    expect(users.filter((f) => !sending.includes(f) && !listening(f))).toEqual([]);
    for (const f of ['client/small-request.ts', 'probe/probe.ts', 'client/http1/pool.ts']) expect(readFileSync(join(SRC, f), 'utf8'), f).toMatch(/checkPermitted\(/);
  });

  it('nothing imports the CLI', () => {
    const violations = files.filter((f) => folderOf(f) !== 'cli' && importsOf(f).includes('cli'));
    expect(violations).toEqual([]);
  });
});
