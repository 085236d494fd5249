import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { gitCommitOf, hostRecord } from './host.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

/** A work tree with a .git folder holding `files` (relative to .git), and a nested folder to start from. */
function workTree(files: Record<string, string>): { root: string; nested: string } {
  const root = mkdtempSync(join(tmpdir(), 'loadproof-git-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(root, '.git', file, '..'), { recursive: true });
    writeFileSync(join(root, '.git', file), text);
  }
  const nested = join(root, 'a', 'b');
  mkdirSync(nested, { recursive: true });
  return { root, nested };
}

describe('the git commit of the working directory (manifest.json), read from .git without git', () => {
  it('follows HEAD to a loose ref, from a folder inside the work tree', () => {
    const { nested } = workTree({ HEAD: 'ref: refs/heads/main\n', 'refs/heads/main': `${A}\n` });
    expect(gitCommitOf(nested)).toBe(A);
  });

  it('finds a ref only in packed-refs, and a detached HEAD', () => {
    expect(
      gitCommitOf(
        workTree({
          HEAD: 'ref: refs/heads/main\n',
          'packed-refs': `# pack-refs with: peeled\n${B} refs/heads/other\n${A} refs/heads/main\n`,
        }).root,
      ),
    ).toBe(A);
    expect(gitCommitOf(workTree({ HEAD: `${B}\n` }).root)).toBe(B);
  });

  it('follows a worktree: .git is a file naming the git folder, whose refs are in its common folder', () => {
    const main = workTree({
      HEAD: 'ref: refs/heads/main\n',
      'refs/heads/feature': `${B}\n`,
      'worktrees/wt/HEAD': 'ref: refs/heads/feature\n',
      'worktrees/wt/commondir': '../..\n',
    });
    const wt = mkdtempSync(join(tmpdir(), 'loadproof-wt-'));
    writeFileSync(join(wt, '.git'), `gitdir: ${join(main.root, '.git', 'worktrees', 'wt')}\n`);
    expect(gitCommitOf(wt)).toBe(B);
  });

  it('is null outside a work tree, for a ref that does not exist, and for a HEAD that is not a commit', () => {
    expect(gitCommitOf(mkdtempSync(join(tmpdir(), 'loadproof-nogit-')))).toBeNull();
    expect(gitCommitOf(workTree({ HEAD: 'ref: refs/heads/gone\n' }).root)).toBeNull();
    expect(gitCommitOf(workTree({ HEAD: 'garbage\n' }).root)).toBeNull();
    expect(
      gitCommitOf(workTree({ HEAD: 'ref: refs/heads/main\n', 'refs/heads/main': 'not a commit\n' }).root),
    ).toBeNull();
  });

  it('goes into the host record with the command line, Node, OS and CPU', () => {
    const { root } = workTree({ HEAD: `${A}\n` });
    const host = hostRecord(['loadproof', 'run', 'x.yaml'], root);
    expect(host).toMatchObject({ node: process.version, commandLine: ['loadproof', 'run', 'x.yaml'], gitCommit: A });
    expect(host.os).toMatch(/\S+ \S+ \S+/);
    expect(host.cpu).toMatch(/ × \d+$|^unknown$/);
  });
});
