import type { TableDef } from '../../../schema/schema.js';
import type { OnConflict } from '../sql-driver.js';
import { rowidCondition } from './duckdb-rowid-ranges.js';

/**
 * Tables whose rows grow with the service's history, which a DuckDB target
 * keeps without a PRIMARY KEY. DuckDB enforces a key with an ART index that
 * stays pinned in its buffer pool while rows are inserted, and inserts of
 * random ids touch all of it: the index cannot be spilled, so it bounds the
 * pool from below. At 600k rows one VARCHAR key alone no longer fit a 64 MB
 * pool ("failed to pin block"); at 1M sessions the keys of these tables
 * outgrow any pool that keeps the process small, and a backfill that squeezed
 * the rest of its pool into the temp directory failed its checkpoint
 * ("Corrupted in-memory column", duckdb/duckdb#16998).
 *
 * The key still holds: the merge reads which sessions are stored and appends
 * only the absent ones (session-merge.ts), within the one write lock of the
 * driver, and a write that may meet a stored key replaces by key
 * (keylessWriteStatements). SQLite and PostgreSQL keep their primary keys.
 * A table listed here is created keyless by its migration (`duckdbKey: false`,
 * or a `duckdbKeyless` step for one created keyed before); a test compares.
 */
export const DUCKDB_KEYLESS_TABLES: readonly string[] = [
  'authentications',
  'fingerprints',
  'session_text_fields',
  'session_images',
  'session_warnings',
  // Grows with every change observed; its key holds a time, which DuckDB could not retype under a key either.
  'change_lags',
  'session_versions',
];

/** Whether a DuckDB target keeps `table` without its primary key index (see DUCKDB_KEYLESS_TABLES). */
export function duckdbKeyless(table: string): boolean {
  return DUCKDB_KEYLESS_TABLES.includes(table);
}

/**
 * The statements that move the rows of `stage` (shaped like `table`, one row
 * per key) into a keyless `table` as `INSERT … ON CONFLICT` would into a
 * keyed one: `replace` deletes the stored rows of the staged keys and inserts
 * the staged rows (every column is written, as DO UPDATE SET would), `ignore`
 * inserts only the staged rows whose key is not stored, `fail` inserts all.
 */
export function keylessWriteStatements(
  table: TableDef,
  stage: string,
  onConflict: OnConflict,
  /** The rowids of every stored row a replace replaces, when known (DuckdbRowids.replaced): deleted by them. */
  replaced: readonly string[] | null = null,
): string[] {
  const columns = table.columns.map((c) => c.name).join(', ');
  const sameKey = table.primaryKey.map((k) => `${table.name}.${k} = ${stage}.${k}`).join(' AND ');
  const insert = `INSERT INTO ${table.name} (${columns}) SELECT ${columns} FROM ${stage}`;
  switch (onConflict) {
    case 'fail':
      return [insert];
    case 'ignore':
      return [`${insert} WHERE NOT EXISTS (SELECT 1 FROM ${table.name} WHERE ${sameKey})`];
    case 'replace':
      return replaced
        ? [`DELETE FROM ${table.name} WHERE ${rowidCondition(replaced)}`, insert]
        : [`DELETE FROM ${table.name} USING ${stage} WHERE ${sameKey}`, insert];
  }
}
