import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Suites start real HTTP servers and open real database files; two cores.
    pool: 'forks',
    maxWorkers: 2,
    // Each worker runs its files one after another in one process, loading got, knex, zod and the
    // drivers once instead of once a file: about half the suite's CPU. Tests share no module state
    // (every one opens its own simulator, temp dir and target), so nothing leaks between files.
    isolate: false,
  },
});
