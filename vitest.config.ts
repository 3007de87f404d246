import * as nodeModule from 'node:module';
import { defineConfig } from 'vitest/config';
import { LongFilesFirst } from './test/long-files-first.js';

/**
 * Node runs the TypeScript sources itself where it can strip their types: each of the eight workers then loads
 * them with Node's own loader instead of Vite's module runner, which transformed and evaluated every module of
 * src/ once per worker. Summed over a run's files, transform and import took 53 + 100 s, against 73 s of import
 * this way, and the suite's CPU fell from 878 to 777 s (both runs beside the same benchmark, 26 November 2026).
 * test/ts-import.mjs maps the sources' `.js` import paths to their `.ts` files. An older Node keeps Vite's runner.
 */
// A namespace import: a Node without registerHooks (before 22.15) would refuse a named one.
const nodeRunsTypeScript =
  Boolean(process.features.typescript) &&
  typeof (nodeModule as { registerHooks?: unknown }).registerHooks === 'function';

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
    ...(nodeRunsTypeScript
      ? { execArgv: ['--import', './test/ts-import.mjs'], experimental: { viteModuleRunner: false } }
      : {}),
  },
});
