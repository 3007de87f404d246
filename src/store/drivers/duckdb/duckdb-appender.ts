import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import { columnValue } from '../column-value.js';
import { normalizeIso } from '../../../normalize/time.js';
import type { ColumnDef } from '../../../schema/schema.js';

/**
 * Fills a table through DuckDB's Appender and closes it. `fill` appends and
 * flushes; the close flushes what is left.
 *
 * An Appender whose flush failed (a refused row) keeps its rows, and every
 * later close tries them again: the one DuckDB makes when the object is
 * garbage-collected too, on the same connection and in whatever transaction
 * it then holds, which that failure aborts ("Current transaction is
 * aborted"). So on failure the rows are cleared before the close, and the
 * first error is the one thrown: the close's own ("transaction is aborted")
 * would hide why the rows were refused.
 */
export async function withAppender<T>(
  connection: DuckDBConnection,
  table: string,
  catalog: 'temp' | undefined,
  fill: (appender: DuckDBAppender) => Promise<T> | T,
): Promise<T> {
  const appender = await connection.createAppender(table, 'main', catalog);
  let result: T;
  try {
    result = await fill(appender);
  } catch (error) {
    try {
      appender.clear();
      appender.closeSync();
    } catch {
      // the first error is the one that says what happened
    }
    throw error;
  }
  appender.closeSync();
  return result;
}

/** Appends one value of `column`; a value of the wrong type fails loudly, naming the column. */
export function appendValue(appender: DuckDBAppender, column: ColumnDef, table: string, raw: unknown): void {
  const value = columnValue(column, raw);
  if (value === null) return appender.appendNull();
  switch (column.type) {
    case 'text':
    case 'json':
      if (typeof value !== 'string') throw wrongType(table, column, value);
      return appender.appendVarchar(value);
    case 'real':
      if (typeof value !== 'number') throw wrongType(table, column, value);
      return appender.appendDouble(value);
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) throw wrongType(table, column, value);
      return appender.appendBigInt(BigInt(value));
    case 'boolean':
      if (typeof value !== 'boolean') throw wrongType(table, column, value);
      return appender.appendBoolean(value);
    case 'timestamp': {
      // As ISO text in UTC with its `Z` (a time without zone is UTC to ivsync,
      // local time to DuckDB), which DuckDB reads exactly into the TIMESTAMPTZ
      // column: the node API appends a TIMESTAMPTZ value through a generic
      // Value, several times slower.
      const iso = typeof value === 'string' ? normalizeIso(value) : null;
      if (iso === null) throw wrongType(table, column, value);
      return appender.appendVarchar(iso);
    }
  }
}

function wrongType(table: string, column: ColumnDef, value: unknown): TypeError {
  return new TypeError(`${table}.${column.name}: ${typeof value} where ${column.type} belongs`);
}
