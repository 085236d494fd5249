/**
 * What machine and command made a run, for its manifest, so that a result can be traced to what produced it: the Node
 * and OS versions, the CPU, the command line and the git commit of the directory it ran in. Read once, when the run
 * starts.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { arch, cpus, release, type } from 'node:os';
import { dirname, join, resolve } from 'node:path';

import type { HostRecord } from '../judge/index.js';

/**
 * The commit checked out in the git work tree holding `dir`, or null (no work tree, or one this cannot
 * read). Read from .git itself, not by running git, which may not be installed.
 */
export function gitCommitOf(dir: string): string | null {
  try {
    let at = resolve(dir);
    while (!existsSync(join(at, '.git'))) {
      if (dirname(at) === at) return null;
      at = dirname(at);
    }
    const dotGit = join(at, '.git');
    if (statSync(dotGit).isDirectory()) return commitOfGitDir(dotGit);
    // A worktree or submodule: .git is a file naming the real git folder.
    const pointer = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'));
    return pointer === null ? null : commitOfGitDir(resolve(at, pointer[1]!.trim()));
  } catch {
    return null;
  }
}

const COMMIT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

function commitOfGitDir(gitDir: string): string | null {
  try {
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    if (COMMIT.test(head)) return head; // detached
    const ref = /^ref: (refs\/[^\s]+)$/.exec(head)?.[1];
    if (ref === undefined) return null;
    // Refs live in the common folder of a worktree.
    const common = existsSync(join(gitDir, 'commondir'))
      ? resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim())
      : gitDir;
    for (const folder of [gitDir, common]) {
      const loose = join(folder, ref);
      if (existsSync(loose)) {
        const commit = readFileSync(loose, 'utf8').trim();
        return COMMIT.test(commit) ? commit : null;
      }
    }
    const packed = join(common, 'packed-refs');
    if (!existsSync(packed)) return null;
    for (const line of readFileSync(packed, 'utf8').split('\n')) {
      const [commit, name] = line.trim().split(' ');
      if (name === ref && commit !== undefined && COMMIT.test(commit)) return commit;
    }
    return null;
  } catch {
    return null;
  }
}

/** This process's host record. `commandLine` is masked by the run's secret mask when it is written. */
export function hostRecord(commandLine: readonly string[], cwd: string): HostRecord {
  const cpu = cpus();
  return {
    node: process.version,
    os: `${type()} ${release()} ${arch()}`,
    cpu: cpu.length === 0 ? 'unknown' : `${cpu[0]!.model.trim()} × ${cpu.length}`,
    commandLine: [...commandLine],
    gitCommit: gitCommitOf(cwd),
  };
}
