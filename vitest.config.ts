import { readFileSync, statfsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { LongFilesFirst } from './test/long-files-first.js';

/**
 * The tests' temporary files (SQLite and DuckDB targets, exports, configs) go to memory where the machine has
 * room there: on a disk another process keeps busy, each DuckDB commit's fsync waited on that process's writes,
 * and the DuckDB upgrade cases passed their 60 s. They are real files on a real file system all the same (a
 * kill loses what a kill loses on a disk); the disk-full tests mount their own small tmpfs either way.
 */
function memoryTmpdir(): string | undefined {
  try {
    const fs = statfsSync('/dev/shm');
    // The package test runs the bin it installs there: a noexec mount would refuse it.
    const noexec = readFileSync('/proc/self/mounts', 'utf8')
      .split('\n')
      .some((line) => line.split(' ')[1] === '/dev/shm' && /(^|,)noexec(,|$)/.test(line.split(' ')[3] ?? ''));
    return !noexec && fs.bavail * fs.bsize >= 4 * 1024 ** 3 ? '/dev/shm' : undefined;
  } catch {
    return undefined;
  }
}
const tmpdir = process.env.IVS_TEST_TMPDIR ?? memoryTmpdir();
if (tmpdir !== undefined) process.env.TMPDIR = tmpdir;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A guard against a hang, not a speed target (those are in `npm run bench`): eight workers share two cores,
    // and the DuckDB disk-full case, 28 s in the suite on a quiet machine, passed 60 s on a busy one.
    testTimeout: 120_000,
    hookTimeout: 120_000,
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
