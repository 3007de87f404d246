import { normalizeIso } from '../../normalize/time.js';
import type { ColumnDef } from '../../schema/schema.js';

/** A value ready for DuckDB's Appender, tagged with the append call it needs. */
export type ExportValue =
  | { kind: 'null' }
  | { kind: 'varchar'; value: string }
  | { kind: 'double'; value: number }
  | { kind: 'bigint'; value: bigint }
  | { kind: 'boolean'; value: boolean }
  /** An instant as ISO 8601 text in UTC (`…Z`), for a TIMESTAMPTZ column. */
  | { kind: 'timestamptz'; value: string };

/**
 * A value read from a source target (as its driver gives it, see
 * sql-driver.ts) turned into the column's DuckDB type: SQLite's 0/1 booleans
 * become BOOLEAN, integers become BIGINT, times (ISO text from every driver,
 * and SQLite's own text) become TIMESTAMPTZ with their microseconds. A value
 * that cannot be read as the column's type fails loudly, naming the column,
 * rather than being exported wrong.
 */
export function exportValue(column: ColumnDef, table: string, value: unknown): ExportValue {
  if (value === null || value === undefined) return { kind: 'null' };
  const wrong = (): Error =>
    new TypeError(`${table}.${column.name}: cannot export ${JSON.stringify(value)} as ${column.type}`);
  switch (column.type) {
    case 'text':
      return { kind: 'varchar', value: typeof value === 'string' ? value : String(value) };
    case 'json':
      // Every driver gives JSON as the text stored (PostgreSQL's included: json, not parsed).
      if (typeof value !== 'string') throw wrong();
      return { kind: 'varchar', value };
    case 'real': {
      const n = typeof value === 'string' ? Number(value) : value;
      if (typeof n !== 'number' || Number.isNaN(n)) throw wrong();
      return { kind: 'double', value: n };
    }
    case 'integer': {
      if (typeof value === 'bigint') return { kind: 'bigint', value };
      const n = typeof value === 'string' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isInteger(n)) throw wrong();
      return { kind: 'bigint', value: BigInt(n) };
    }
    case 'boolean':
      if (typeof value === 'boolean') return { kind: 'boolean', value };
      if (value === 0 || value === 1) return { kind: 'boolean', value: value === 1 };
      throw wrong();
    case 'timestamp': {
      const iso = typeof value === 'string' ? normalizeIso(value) : null;
      if (iso === null) throw wrong();
      return { kind: 'timestamptz', value: iso };
    }
  }
}
