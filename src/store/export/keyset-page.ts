import type { TableDef } from '../../schema/schema.js';
import type { KeysetRead } from '../drivers/sql-driver.js';

/**
 * The SQL of one chunk of a table read in primary key order, after the key
 * of the last row read (keyset paging: every chunk costs an index seek, not a
 * scan of the rows before it, and memory holds one chunk). The row-value
 * comparison `(a, b) > (?, ?)` is understood by SQLite, DuckDB and PostgreSQL
 * alike, and compares with the same collation as the ORDER BY.
 */
export function keysetPage(
  def: TableDef,
  after: readonly unknown[] | null,
  limit: number,
): { sql: string; params: unknown[] } {
  const columns = def.columns.map((c) => c.name).join(', ');
  const key = def.primaryKey;
  const order = key.join(', ');
  if (after === null) return { sql: `SELECT ${columns} FROM ${def.name} ORDER BY ${order} LIMIT ${limit}`, params: [] };
  if (after.length !== key.length)
    throw new Error(`keysetPage: ${def.name} has a key of ${key.length} columns, got ${after.length} values`);
  const where = key.length === 1 ? `${key[0]} > ?` : `(${order}) > (${key.map(() => '?').join(', ')})`;
  return {
    sql: `SELECT ${columns} FROM ${def.name} WHERE ${where} ORDER BY ${order} LIMIT ${limit}`,
    params: [...after],
  };
}

/** The primary key values of a row, to continue after it. */
export function keyOf(def: TableDef, row: Readonly<Record<string, unknown>>): unknown[] {
  return def.primaryKey.map((k) => row[k]);
}

/** The whole of a table read in primary key order, `chunkRows` at a time, as SqlDriver.keysetChunks takes it. */
export function keysetRead(def: TableDef, chunkRows: number): KeysetRead {
  const names = def.columns.map((c) => c.name);
  return {
    first: keysetPage(def, null, chunkRows).sql,
    // Any values of the key's length: only the statement's text is kept, its placeholders bound by the reader.
    next: keysetPage(def, def.primaryKey, chunkRows).sql,
    keyAt: def.primaryKey.map((k) => names.indexOf(k)),
    chunkRows,
  };
}
