import type { ColumnDef } from '../../schema/schema.js';

/**
 * A row value as every driver binds it: JSON columns take text (a mirror row
 * may carry a parsed object or array, which pg would otherwise turn into a
 * PostgreSQL array), and an absent value is NULL. Booleans are left to the
 * driver (SQLite binds 0/1).
 */
export function columnValue(column: ColumnDef, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (column.type === 'json' && typeof value !== 'string') return JSON.stringify(value);
  return value;
}
