import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Integration and CLI tests start real servers and child processes; keep them bounded.
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
