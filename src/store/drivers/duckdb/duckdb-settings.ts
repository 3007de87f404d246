/**
 * What a DuckDB instance opened by ivsync may take: without these, DuckDB
 * sizes its buffer pool at 80% of the machine's memory and keeps every block
 * it read or wrote cached there, so a process's RSS follows the size of the
 * table rather than the work in hand.
 */
export interface DuckdbMemoryOptions {
  /**
   * DuckDB's buffer pool (`memory_limit`): blocks beyond it are evicted, or
   * spilled to the temp directory (`<file>.tmp` beside a database file).
   * @default DEFAULT_POOL_MB
   */
  memoryLimitMb?: number;
  /**
   * DuckDB's worker threads: each holds its own buffers while it works, and
   * the writes of one ivsync process are one statement at a time anyway.
   * @default 1
   */
  threads?: number;
}

/**
 * The buffer pool by default. A smaller one saves memory but not room on
 * disk: a 1M-session backfill into a target (a 2-core VM, runs alternated)
 * peaked at 396 / 400 MB with 96 MB and 360 / 364 MB with 64, in the same
 * time, but with 64 the backfill resumed after a full disk
 * (test/cli/disk-full.test.ts: room for the finished file added) failed two
 * times in three: replaying the WAL and checkpointing it offloaded blocks to
 * the temp directory, which DuckDB caps at 90% of the free space, 4–6 MB
 * there ("failed to offload data block"). With 96 MB it fits in memory.
 */
export const DEFAULT_POOL_MB = 96;

/** The buffer pool's size in MB (`memory_limit`). */
export function poolMegabytes(options: DuckdbMemoryOptions = {}): number {
  return Math.max(64, Math.round(options.memoryLimitMb ?? DEFAULT_POOL_MB));
}

/** The settings to pass to `DuckDBInstance.create`, DuckDB's own names and text values. */
export function duckdbMemorySettings(options: DuckdbMemoryOptions = {}): Record<string, string> {
  const memoryLimitMb = poolMegabytes(options);
  const threads = Math.max(1, Math.round(options.threads ?? 1));
  return {
    memory_limit: `${memoryLimitMb}MB`,
    threads: String(threads),
    // Order is kept by ORDER BY where it matters; without the promise, COPY and INSERT … SELECT need not buffer rows to
    // restore it.
    preserve_insertion_order: 'false',
    // DuckDB's allocator keeps freed memory for reuse: most of a process's RSS above the pool was
    // memory a checkpoint had freed. Handing it back after each task keeps RSS near the pool.
    allocator_flush_threshold: '8MB',
    allocator_bulk_deallocation_flush_threshold: '16MB',
    allocator_background_threads: 'true',
  };
}
