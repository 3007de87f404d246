import { defineConfig } from 'vitest/config';
import { LongFilesFirst } from './test/long-files-first.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Suites start real HTTP servers, child processes and real database files, and spend much of their time
    // waiting on them (a paced bucket, a daemon's schedule, a lease): with four workers on two cores the CPU sat
    // idle about two fifths of the run. On the quiet 2-core machine eight workers ran the suite in 224 s with
    // vitest's record of past durations and six in 249 s; in CI (a fresh clone, no record) eight took 272-274 s
    // where four took about 282 s, using about the same CPU.
    pool: 'forks',
    maxWorkers: 8,
    // Each worker runs its files one after another in one process, loading got, knex, zod and the
    // drivers once instead of once a file: about half the suite's CPU. Tests share no module state
    // (every one opens its own simulator, temp dir and target), so nothing leaks between files.
    isolate: false,
    // The longest files start first, so that none of them is the run's tail (see test/long-files-first.ts).
    sequence: { sequencer: LongFilesFirst },
  },
});
