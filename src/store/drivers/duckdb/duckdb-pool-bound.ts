import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * The share of the buffer pool a file's table blocks may take before the
 * driver opens the file anew. DuckDB keeps the blocks of the row groups an
 * instance appended to and checkpointed loaded in its pool (`BASE_TABLE` in
 * `duckdb_memory()`) for the instance's life: about 20–25 MB per 250,000
 * sessions, so a backfill's pool filled as its history grew, and a 96 MB pool
 * failed a checkpoint at 3.34M sessions ("failed to pin block"). Opened anew,
 * the instance holds 2–3 MB of them, and the next 250,000 sessions take the
 * same 20–25 MB again (`node dist/bench/duckdb-growth.js`, docs/benchmarks.md).
 * Opening a file of 0.2–1.5 GB took 50–220 ms. The process's memory outside
 * the pool grows with the checkpoints between two opens too, and the open
 * gives it back: an eighth of the pool rather than a quarter (three opens for
 * one) took a process writing 300,000 sessions on into a 10M-session file
 * from 331–340 MB at its peak to 302–307, in the same time
 * (docs/benchmarks.md, "The table blocks' share: an eighth").
 */
const TABLE_BLOCKS_POOL_SHARE = 0.125;

/** The bytes of table blocks an instance with a pool of `poolMb` may hold. */
export function tableBlocksBound(poolMb: number): number {
  return poolMb * 2 ** 20 * TABLE_BLOCKS_POOL_SHARE;
}

/** Whether the table blocks the instance holds are past `boundBytes`. */
export async function tableBlocksOverBound(connection: DuckDBConnection, boundBytes: number): Promise<boolean> {
  const reader = await connection.runAndReadAll(
    "SELECT memory_usage_bytes FROM duckdb_memory() WHERE tag = 'BASE_TABLE'",
  );
  return Number(reader.getRows()[0]?.[0] ?? 0) > boundBytes;
}
