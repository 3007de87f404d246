/**
 * DuckDB's native library brings its own jemalloc, which reads its options
 * from this variable once, when the library is loaded.
 */
export const DUCKDB_ALLOCATOR_ENV = 'DUCKDB_JE_MALLOC_CONF';

/**
 * Hand memory DuckDB freed back to the system at once. DuckDB's own options
 * keep it for a second as dirty pages and a second more as lazily freed ones,
 * and count that time only while the process allocates: what a checkpoint
 * freed stayed resident. A process that inserted and checkpointed 100,000
 * authentications in five commits held 216–268 MB of anonymous memory with
 * 2 MB of it in DuckDB's buffer pool, and 36–40 MB with these options, in the
 * same time (docs/benchmarks.md, "DuckDB's allocator").
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
