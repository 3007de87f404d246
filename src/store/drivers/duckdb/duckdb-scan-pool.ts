import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * The buffer pool a transaction has once it reads a table for ids the
 * held-id filter may hold (duckdb-held-ids.ts): two thirds of the pool, 64 MB
 * at the least.
 *
 * With no key index (duckdb-keyless.ts), that read scans the whole id column,
 * and DuckDB keeps the blocks it read cached until the pool is full. In a
 * backfill such a read is mostly the filter's false "maybe" (one in 100,000
 * ids or fewer); on a 10M-session file one took the pool's table blocks from
 * 17 to 64 MB and the process from 269 to 334 MB in one commit, and it set the
 * peak of a run that wrote 300,000 sessions more: 335–344 MB, against 300–302
 * for the same run with ids the filter knew to be new. A smaller pool for
 * the rest of that transaction makes DuckDB evict as it scans: 309 MB. The
 * pool is whole again before the COMMIT, whose checkpoint needs it
 * (docs/benchmarks.md, "A false maybe's read").
 */
export function scanPoolMegabytes(poolMb: number): number {
  return Math.min(poolMb, Math.max(64, Math.round((poolMb * 2) / 3)));
}

/** Narrows a connection's pool for a read of the stored ids, and widens it again. */
export class ScanPool {
  readonly #poolMb: number;
  readonly #scanMb: number;
  #narrowed = false;

  constructor(poolMb: number) {
    this.#poolMb = poolMb;
    this.#scanMb = scanPoolMegabytes(poolMb);
  }

  /**
   * The pool at its scan size until `widen`. A pool DuckDB cannot shrink that far (what it holds cannot be evicted)
   * stays as it is: the read is only slower to give memory back.
   */
  async narrow(connection: DuckDBConnection): Promise<void> {
    if (this.#narrowed || this.#scanMb >= this.#poolMb) return;
    this.#narrowed = true;
    await connection.run(`SET memory_limit = '${this.#scanMb}MB'`).catch(() => undefined);
  }

  /** The whole pool again. Fails while the transaction is aborted; it is then asked again after the ROLLBACK. */
  async widen(connection: DuckDBConnection): Promise<void> {
    if (!this.#narrowed) return;
    await connection.run(`SET memory_limit = '${this.#poolMb}MB'`);
    this.#narrowed = false;
  }
}
