/**
 * DuckDB's native library brings its own jemalloc, which reads its options
 * from this variable once, when the library is loaded.
 */
export const DUCKDB_ALLOCATOR_ENV = 'DUCKDB_JE_MALLOC_CONF';

/**
 * Hand memory DuckDB freed back to the system within a tenth of a second, and
 * at once rather than lazily. DuckDB's own options keep it for a second as
 * dirty pages and a second more as lazily freed ones. The export of a
 * 10M-session DuckDB target (the export-scale bench) peaked at 351 MB in
 * 229 s with DuckDB's options, 313 MB in 234 s with these, and 273 MB in
 * 269 s with both decays at 0, whose page faults cost a fifth more time; a
 * backfill and an idle sync moved within their noise even at 0
 * (docs/benchmarks.md, "DuckDB's allocator").
 */
export const RETURN_FREED_MEMORY = 'dirty_decay_ms:100,muzzy_decay_ms:0';

/**
 * Call before the first import of `@duckdb/node-api` in a process: after it,
 * the allocator's options are fixed. Options the environment already sets are
 * the operator's and are kept.
 */
export function beforeLoadingDuckdb(env: NodeJS.ProcessEnv = process.env): void {
  env[DUCKDB_ALLOCATOR_ENV] ??= RETURN_FREED_MEMORY;
}
