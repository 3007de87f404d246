import { DuckDBListValue, type DuckDBAppender, type DuckDBValue } from '@duckdb/node-api';
import { columnValue } from '../column-value.js';
import { normalizeIso } from '../../../normalize/time.js';
import type { ColumnDef } from '../../../schema/schema.js';

/** A parameter as DuckDB binds it: lists as they are, objects as JSON text. */
export function bindable(value: unknown): DuckDBValue {
  if (value === undefined || value === null) return null;
  if (value instanceof DuckDBListValue) return value;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return value;
  return JSON.stringify(value);
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
