import { availableParallelism } from 'node:os';

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Integration and CLI tests start real servers and child processes; keep them bounded. The limit is a bound on
    // a hung test, not a speed check: 45 s held beside one CPU hog (the slowest took 17 s), but beside two and other
    // work on 2 cores (load 13 to 35) a node start-up alone took 7 s and tests with a child (bounded at 60 s,
    // test/helpers/cli.ts) and work after it ran past 45 s. 90 s.
    testTimeout: 90_000,
    hookTimeout: 90_000,
    // Vitest's default on 2 cores is one worker, but most CLI tests wait on time-scaled runs: more workers
    // than the cores let files compute while others wait. Beside a CPU hog on 2 cores (2026-11-26, 1,186
    // tests): two more, 133 s of wall time; four more, 100 s; six more, 95 s with a test past its 20 s limit.
    // With the bundled CLI (2026-11-28) a CLI test's process starts in half the CPU and the files overlap more: beside
    // one hog, four more workers failed 4 of 5 suite runs on the time-scaled runs' own lateness (honest outcomes of a
    // starved run, not defects). Two more.
    maxWorkers: availableParallelism() + 2,
    // No file leaves anything global behind (servers close after each test; runs in-process get their
    // own Io, test/helpers/cli.ts), so the files of a worker share its loaded modules instead of
    // loading them again: 52 unit files 66 → 33 s of CPU, 17 CLI files 103 → 82 s.
    isolate: false,
    // One temporary folder for the whole suite, removed at its end (test/suite-tmpdir.ts).
    globalSetup: ['test/suite-tmpdir.ts'],
  },
});
