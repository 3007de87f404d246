import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Suites start real HTTP servers, child processes and real database files, and spend most of their time
    // waiting on them: four workers on two cores ran the whole suite in 297 s where two took 420 s (the same
    // busy machine, the JSON reporter's file times), every test passing both ways.
    pool: 'forks',
    maxWorkers: 4,
    // Each worker runs its files one after another in one process, loading got, knex, zod and the
    // drivers once instead of once a file: about half the suite's CPU. Tests share no module state
    // (every one opens its own simulator, temp dir and target), so nothing leaks between files.
    isolate: false,
  },
});
