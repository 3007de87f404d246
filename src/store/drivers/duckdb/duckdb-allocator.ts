/**
 * DuckDB's native library brings its own jemalloc, which reads its options
 * from this variable once, when the library is loaded.
 */
export const DUCKDB_ALLOCATOR_ENV = 'DUCKDB_JE_MALLOC_CONF';

/**
 * Hand memory DuckDB freed back to the system at once. DuckDB's own options
 * keep it for a second as dirty pages and a second more as lazily freed ones:
 * an export of a 1M-session DuckDB target peaked at 288–296 MB with them and
 * at 210–213 MB with these, for some 3.5 s more system time (page faults and
 * madvise) in about 24 s; a backfill and an idle sync of that size moved
 * within their noise (docs/benchmarks.md, "DuckDB's allocator").
 */
export const RETURN_FREED_MEMORY = 'dirty_decay_ms:0,muzzy_decay_ms:0';

/**
 * Call before the first import of `@duckdb/node-api` in a process: after it,
 * the allocator's options are fixed. Options the environment already sets are
 * the operator's and are kept.
 */
export function beforeLoadingDuckdb(env: NodeJS.ProcessEnv = process.env): void {
  env[DUCKDB_ALLOCATOR_ENV] ??= RETURN_FREED_MEMORY;
}
