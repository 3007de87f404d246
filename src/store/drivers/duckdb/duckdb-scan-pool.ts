import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * The buffer pool a transaction has once it reads a table for a few ids the
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
 * the rest of that transaction makes DuckDB evict as it scans: 311–312 MB. The
 * pool is whole again before the COMMIT, whose checkpoint needs it
 * (docs/benchmarks.md, "A false maybe's read").
 *
 * A refresh's read finds most of the ids it asks about, and the next page's
 * read scans the same column again: there the cached blocks are worth their
 * room. Narrowed for every read, an idle sync of a 1M-session target took
 * 19.8–19.9 s instead of 16.7–18.1 (at 251–262 MB rather than 275–276), so
 * the pool narrows only when the filter may hold under FEW_MAYBE of the ids
 * asked about.
 */
export function scanPoolMegabytes(poolMb: number): number {
  return Math.min(poolMb, Math.max(64, Math.round((poolMb * 2) / 3)));
}

/** The share of the ids asked about under which the filter's "maybe"s are a read that finds next to nothing. */
const FEW_MAYBE = 0.1;

/** Narrows the pool of the connection a driver holds at the time for a read of the stored ids, and widens it again. */
export class ScanPool {
  readonly #poolMb: number;
  readonly #scanMb: number;
  readonly #connection: () => DuckDBConnection;
  #narrowed = false;

  constructor(poolMb: number, connection: () => DuckDBConnection) {
    this.#poolMb = poolMb;
    this.#scanMb = scanPoolMegabytes(poolMb);
    this.#connection = connection;
  }

  /**
   * The pool at its scan size until `widen`, when the filter may hold `maybe` of `asked` ids, under FEW_MAYBE of
   * them. A pool DuckDB cannot shrink that far (what it holds cannot be evicted) stays as it is: the read is only
   * slower to give memory back.
   */
  async narrow(maybe: number, asked: number): Promise<void> {
    if (this.#narrowed || this.#scanMb >= this.#poolMb || maybe >= asked * FEW_MAYBE) return;
    this.#narrowed = true;
    await this.#connection()
      .run(`SET memory_limit = '${this.#scanMb}MB'`)
      .catch(() => undefined);
  }

  /** The whole pool again. Fails while the transaction is aborted; it is then asked again after the ROLLBACK. */
  async widen(): Promise<void> {
    if (!this.#narrowed) return;
    await this.#connection().run(`SET memory_limit = '${this.#poolMb}MB'`);
    this.#narrowed = false;
  }
}
