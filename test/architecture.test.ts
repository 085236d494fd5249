/**
 * The layering of src/ (shared/STYLE.md §5): each folder may import only the folders listed for
 * it. Above all the mock shares nothing with the engine but the spec's numbers and the texts, so it cannot
 * agree with the client by accident.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

/**
 * The design, folder by folder (docs/architecture.md draws it): each folder of src/ and the folders it may import.
 * The flow runs scenario → plan → guard → engine/client → recorder → judge → report → run folder; the run and
 * the commands beside it (probe, deid) use them; the CLI wires everything. The mock shares nothing with the
 * engine but the spec's numbers and the texts, so it cannot agree with the client by accident.
 */
const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  spec: [],
  phi: [],
  texts: ['core', 'spec', 'phi'],
  mock: ['core', 'spec', 'texts', 'phi'],
  scenario: ['core', 'spec', 'texts'],
  plan: ['core', 'spec', 'scenario'],
  guard: ['core', 'spec', 'scenario', 'plan'],
  client: ['core', 'spec'],
  target: ['core', 'spec', 'client', 'scenario', 'plan', 'guard', 'mock'],
  engine: ['core', 'client', 'plan'],
  recorder: ['core'],
  judge: ['core', 'spec', 'phi', 'texts', 'scenario', 'plan', 'recorder'],
  report: ['core', 'phi', 'scenario', 'recorder', 'judge'],
  'run-folder': ['core', 'phi', 'scenario', 'plan', 'recorder', 'judge', 'report'],
  deid: ['core', 'spec', 'phi', 'texts', 'client', 'target', 'guard', 'plan', 'scenario'],
  run: [
    'core',
    'spec',
    'phi',
    'texts',
    'scenario',
    'plan',
    'guard',
    'client',
    'target',
    'engine',
    'recorder',
    'judge',
    'report',
    'run-folder',
    'deid',
  ],
  probe: ['core', 'spec', 'texts', 'scenario', 'plan', 'guard', 'client', 'target', 'recorder', 'judge', 'run-folder'],
  trend: ['core', 'judge', 'report', 'run-folder'],
  cli: ['*'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')
      ? [path]
      : [];
  });
}

const folderOf = (file: string): string => relative(SRC, file).split(/[\\/]/)[0]!;
const shown = (file: string): string => relative(SRC, file).split(/[\\/]/).join('/');

/** Every relative import of a file (static, type-only, re-exports and dynamic import()), as absolute .ts paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from|import\()\s*'(\.[^']+)'/g)].map((m) => m[1]!);
  return specs.map((s) => resolve(dirname(file), s).replace(/\.js$/, '.ts'));
}

/** The imports that break the design: to a folder not allowed, or into another folder past its index.ts. */
export function violations(files: readonly string[], allowed: Record<string, readonly string[]>): string[] {
  return files.flatMap((f) => {
    const from = folderOf(f);
    const may = allowed[from] ?? [];
    return importsOf(f).flatMap((to) => {
      const folder = folderOf(to);
      if (folder === from) return [];
      const problems: string[] = [];
      if (!may.includes('*') && !may.includes(folder)) problems.push(`${shown(f)} → ${folder}: not allowed`);
      if (relative(join(SRC, folder), to) !== 'index.ts')
        problems.push(`${shown(f)} → ${shown(to)}: past ${folder}/index.ts`);
      return problems;
    });
  });
}

/**
 * The cycles among files, type-only imports included (Tarjan's strongly connected components of more than one file).
 */
export function cycles(files: readonly string[]): string[][] {
  const edges = new Map(files.map((f) => [f, importsOf(f).filter((t) => t !== f)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(shown(w));
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return found;
}

describe('src/ layering', () => {
  const files = sourceFiles(SRC);

  it('finds the source files', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it('every folder of src/ is in the design', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.filter((f) => !(f in ALLOWED))).toEqual([]);
    expect(Object.keys(ALLOWED).filter((f) => !folders.includes(f))).toEqual([]);
  });

  it('each folder imports only what it may, and only through the index.ts of another folder', () => {
    expect(violations(files, ALLOWED)).toEqual([]);
  });

  it('no cycle among the files, type-only imports included', () => {
    expect(cycles(files)).toEqual([]);
  });

  // Only the guard issues the permit every send needs (src/core/send-permit.ts).
  it('only the guard makes a send permit', () => {
    const makers = files
      .filter((f) => /\bissueSendPermit\b|\bas SendPermit\b|<SendPermit>/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(SRC, f));
    expect(
      makers.filter(
        (f) => !f.startsWith('guard/') && f !== join('core', 'send-permit.ts') && f !== join('core', 'index.ts'),
      ),
    ).toEqual([]);
    expect(makers).toContain(join('guard', 'permit.ts'));
  });

  // Everything that can open a connection is one of these: the sending ones take a SendPermit (checked on entry),
  // the others only listen. A new module with a network API fails here until it is classified.
  it('only the permit-taking senders and the listening servers use a network API', () => {
    const NETWORK_MODULE =
      /^import\s+(?!type\s)([^;]*?)\s+from\s+'(?:node:)?(?:http|https|net|tls|http2|dgram|undici|autocannon)'/gm;
    // Type-only imports open nothing, and neither do node:net's address checks (isIP, isIPv4, isIPv6) nor node:tls's
    // trust store (createSecureContext, rootCertificates: the CAs a connection made elsewhere trusts).
    const OPENS_NOTHING = /^\{\s*(?:(?:isIP(?:v4|v6)?|createSecureContext|rootCertificates|type \w+)\s*,?\s*)+\}$/;
    const usesNetwork = (text: string): boolean =>
      /\bfetch\(/.test(text) || [...text.matchAll(NETWORK_MODULE)].some((m) => !OPENS_NOTHING.test(m[1]!.trim()));
    const users = files
      .filter((f) => usesNetwork(readFileSync(f, 'utf8')))
      .map((f) => relative(SRC, f).split(/[\\/]/).join('/'));
    // tunnel.ts opens the connections of the two clients through a proxy; they are the ones that check the permit.
    const sending = [
      'client/small-request.ts',
      'client/http1/connection.ts',
      'client/http1/tunnel.ts',
      'probe/probe.ts',
    ];
    const listening = (f: string): boolean =>
      f.startsWith('mock/') || f === 'run/metrics/server.ts' || f === 'run/warm-up.ts';
    expect(users).toEqual(expect.arrayContaining([...sending, 'run/metrics/server.ts']));
    expect(users.filter((f) => !sending.includes(f) && !listening(f))).toEqual([]);
    for (const f of ['client/small-request.ts', 'probe/probe.ts', 'client/http1/pool.ts'])
      expect(readFileSync(join(SRC, f), 'utf8'), f).toMatch(/checkPermitted\(/);
  });

  it('nothing imports the CLI', () => {
    expect(
      files.filter((f) => folderOf(f) !== 'cli' && importsOf(f).some((to) => folderOf(to) === 'cli')).map(shown),
    ).toEqual([]);
  });
});
