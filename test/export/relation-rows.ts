import { DuckDBInstance } from '@duckdb/node-api';
import { readDuckdbValue } from '../../src/store/drivers/duckdb/duckdb-read-value.js';
import type { TableDef } from '../../src/schema/schema.js';

/**
 * A table's rows in one comparable form whatever produced them: SQLite's 0/1
 * and DuckDB's booleans alike, integers as numbers, JSON parsed, times as the
 * ISO text every driver gives (to the microsecond), sorted by primary key.
 */
export function comparableRows(
  def: TableDef,
  rows: ReadonlyArray<Record<string, unknown>>,
): Array<Record<string, unknown>> {
  const out = rows.map((row) => {
    const copy: Record<string, unknown> = {};
    for (const column of def.columns) {
      const v = row[column.name];
      if (v === null || v === undefined) {
        copy[column.name] = null;
        continue;
      }
      switch (column.type) {
        case 'boolean':
          copy[column.name] = Boolean(v);
          break;
        case 'integer':
        case 'real':
          copy[column.name] = Number(v);
          break;
        case 'json':
          copy[column.name] = typeof v === 'string' ? (JSON.parse(v) as unknown) : v;
          break;
        case 'text':
        case 'timestamp':
          copy[column.name] = String(v);
          break;
      }
    }
    return copy;
  });
  const key = (r: Record<string, unknown>): string => JSON.stringify(def.primaryKey.map((k) => r[k]));
  return out.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * Opens a DuckDB database (a file, or :memory: for Parquet) with a fresh
 * instance and runs one query; values as the DuckDB target reads them (times
 * as ISO text with their microseconds, integers as numbers).
 */
export async function duckdbRows(path: string, sql: string): Promise<Array<Record<string, unknown>>> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql)).convertRowObjects(readDuckdbValue);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
