import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Integration and CLI tests start real servers and child processes; keep them bounded.
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Vitest's default on 2 cores is one worker, but most CLI tests wait on time-scaled runs: one
    // worker more than the cores lets files compute while others wait.
    maxWorkers: availableParallelism() + 1,
    projects: [
      {
        extends: true,
        test: {
          // Pure logic, and the in-process mock over loopback: nothing global to leak between files,
          // so they share a worker's modules instead of loading them again for each file.
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/architecture.test.ts', 'test/scenarios.test.ts'],
          isolate: false,
        },
      },
      {
        extends: true,
        // The CLI, in child processes and in-process (test/helpers/cli.ts): each file on its own.
        test: { name: 'cli', include: ['test/cli/**/*.test.ts'] },
      },
    ],
  },
});
