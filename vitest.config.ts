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
    // A guard against a hang, not a speed target (those are in `npm run bench`): five workers share two cores,
    // and the DuckDB disk-full case, 28 s in the suite on a quiet machine, passed 60 s on a busy one.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Suites start real HTTP servers, child processes and real database files, and spend much of their time
    // waiting on them (a paced bucket, a daemon's schedule, a lease), so more workers than cores keep the CPU
    // busy; past that they only compete for it. A fresh clone (no record of past durations), the 2-core machine,
    // quiet, 27 November 2026: 4 workers ran the suite in 193 s for 279 s of CPU, 5 in 176 s for 277 s, 6 in
    // 177 s for 289 s, 8 in 212 s for 353 s.
    pool: 'forks',
    maxWorkers: 5,
    // Each worker runs its files one after another in one process, loading got, knex, zod and the
    // drivers once instead of once a file: about half the suite's CPU. Tests share no module state
    // (every one opens its own simulator, temp dir and target), so nothing leaks between files.
    isolate: false,
    // The longest files start first, so that none of them is the run's tail (see test/long-files-first.ts).
    sequence: { sequencer: LongFilesFirst },
  },
});
