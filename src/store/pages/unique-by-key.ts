import type { TableDef } from '../../schema/schema.js';
import type { Row } from '../drivers/sql-driver.js';

/** The last row wins per primary key: a statement may not touch one key twice. */
export function uniqueByKey(def: TableDef, rows: readonly Row[]): Row[] {
  if (rows.length < 2) return [...rows];
  const byKey = new Map<string, Row>();
  for (const row of rows) byKey.set(def.primaryKey.map((c) => String(row[c])).join('\u0000'), row);
  return byKey.size === rows.length ? [...rows] : [...byKey.values()];
}
