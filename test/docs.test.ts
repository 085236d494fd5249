/**
 * The docs a newcomer walks: the generated references are current (regenerated in memory from dist/ and
 * compared with the committed files: `npm run docs` writes them), every relative link of the docs points at a
 * file that exists (and at a heading that exists, for a `#anchor` into a .md file), every file of the repository
 * they name exists, and docs/architecture.md names every folder of src/ with what it may import.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

// @ts-expect-error: a plain ESM script of the repository, without types
import { REFERENCES } from '../scripts/reference.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

function markdownUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

const DOCS = ['README.md', 'scenarios/README.md', 'test/README.md', 'bench/RESULTS.md', ...markdownUnder('docs')];

/** The text outside code: fenced blocks and inline code spans hold no links (a regex there may look like one). */
const prose = (text: string): string => text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');

/** A heading's anchor as GitHub makes it: lower case, punctuation out (not - or _), spaces to hyphens. */
function slug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Every anchor of a Markdown file (a repeated heading gets -1, -2, … as GitHub numbers them). */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of read(file)
    .replace(/^```[\s\S]*?^```/gm, '')
    .matchAll(/^#{1,6} (.*)$/gm)) {
    const base = slug(match[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The relative links of a file that do not resolve: the file named, and the heading for a #anchor into .md. */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const match of prose(read(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
    const link = match[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:: not ours to check
    const [path, anchor] = link.split('#') as [string, string | undefined];
    const target = path === '' ? file : relative(ROOT, resolve(ROOT, dirname(file), path));
    if (!existsSync(join(ROOT, target))) broken.push(`${file}: ${link} (no ${target})`);
    else if (
      anchor !== undefined &&
      target.endsWith('.md') &&
      statSync(join(ROOT, target)).isFile() &&
      !anchorsOf(target).has(anchor)
    ) {
      broken.push(`${file}: ${link} (no heading #${anchor} in ${target})`);
    }
  }
  return broken;
}

describe('the generated references', () => {
  for (const [file, generate] of Object.entries(REFERENCES as Record<string, () => Promise<string>>)) {
    it(`${file} is what npm run docs generates from the code (run it after a change of flags or schema)`, async () => {
      expect(read(file)).toBe(await generate());
    });
  }

  it('have a heading per command and per flag, and per field of the scenario', () => {
    const cli = read('docs/reference/cli.md');
    for (const heading of [
      '## `loadproof run`',
      '### `run --time-scale`',
      '### `run <scenario>`',
      '### `mock --profile`',
      '## Exit codes',
    ])
      expect(cli).toContain(`\n${heading}\n`);
    const scenario = read('docs/reference/scenario.md');
    for (const heading of ['## `phases`', '### `phases[].rpm`', '### `target.environment`', '### `payload.split`'])
      expect(scenario).toContain(`\n${heading}\n`);
  });
});

describe('the docs', () => {
  it('README.md stays a front page: at most 300 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(300);
  });

  it('every relative link resolves, to a file and to a heading', () => {
    expect(DOCS.flatMap(brokenLinks)).toEqual([]);
  });

  it('every file of the repository the docs name (src/…, test/…, scripts/…) exists', () => {
    const named = DOCS.flatMap((file) =>
      [...read(file).matchAll(/(?:^|[\s`(])\.?\/?((?:src|test|scripts|bench|deploy|scenarios)\/[\w./-]+)/gm)].map(
        (m) => [file, m[1]!.replace(/[.,;:]+$/, '')] as const,
      ),
    );
    expect(named.length).toBeGreaterThan(0);
    // A module named as it is imported (`./src/mock/index.js`) is its .ts file.
    const missing = named.filter(
      ([, path]) => !existsSync(join(ROOT, path)) && !existsSync(join(ROOT, path.replace(/\.js$/, '.ts'))),
    );
    expect(missing.map(([file, path]) => `${file}: ${path}`)).toEqual([]);
  });

  it('reads anchors as GitHub makes them', () => {
    expect(slug('Stats: `GET /__mock/stats`')).toBe('stats-get-__mockstats');
    expect(anchorsOf('docs/guides/mock.md').has('stats-get-__mockstats')).toBe(true);
    expect(anchorsOf('docs/guides/mock.md').has('no-such-heading')).toBe(false);
  });

  it('docs/architecture.md says what each folder may import as the architecture test allows it', () => {
    // The table of test/architecture.test.ts, read from its source (that test owns it; this one only reads it).
    const source = read('test/architecture.test.ts');
    const table = source.slice(source.indexOf('const ALLOWED'), source.indexOf('};', source.indexOf('const ALLOWED')));
    const allowed = Object.fromEntries(
      [...table.matchAll(/^\s+'?([\w-]+)'?: \[([^\]]*)\],?$/gm)].map((m) => [
        m[1]!,
        [...m[2]!.matchAll(/'([^']+)'/g)].map((q) => q[1]!),
      ]),
    );
    expect(Object.keys(allowed).length).toBeGreaterThan(0);
    const documented = Object.fromEntries(
      [...read('docs/architecture.md').matchAll(/^\| `([\w-]+)` \| [^\n]* \| ([^|\n]+) \|$/gm)].map((m) => {
        const imports = m[2]!.trim();
        return [m[1]!, imports === 'nothing' ? [] : imports === 'every folder' ? ['*'] : imports.split(', ')];
      }),
    );
    expect(documented).toEqual(allowed);
  });

  it('docs/architecture.md names every folder of src/', () => {
    const architecture = read('docs/architecture.md');
    const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.length).toBeGreaterThan(0);
    expect(folders.filter((folder) => !architecture.includes(`| \`${folder}\` |`))).toEqual([]);
  });
});
