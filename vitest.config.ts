import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Integration and CLI tests start real servers and child processes; keep them bounded. 45 s: the slowest
    // took 17 s beside a CPU hog with six workers; the limit is a bound on a hung test, not a speed check.
    testTimeout: 45_000,
    hookTimeout: 45_000,
    // Vitest's default on 2 cores is one worker, but most CLI tests wait on time-scaled runs: more workers
    // than the cores let files compute while others wait. Beside a CPU hog on 2 cores (2026-11-26, 1,186
    // tests): two more, 133 s of wall time; four more, 100 s; six more, 95 s with a test past its 20 s limit.
    maxWorkers: availableParallelism() + 4,
    // No file leaves anything global behind (servers close after each test; runs in-process get their
    // own Io, test/helpers/cli.ts), so the files of a worker share its loaded modules instead of
    // loading them again: 52 unit files 66 → 33 s of CPU, 17 CLI files 103 → 82 s.
    isolate: false,
  },
});
