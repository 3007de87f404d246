import type { Dialect } from './dialect.js';
import type { ColumnDef } from './schema.js';

/** A value ready for DuckDB's Appender, tagged with the append call it needs. */
export type ExportValue =
  | { kind: 'null' }
  | { kind: 'varchar'; value: string }
  | { kind: 'double'; value: number }
  | { kind: 'bigint'; value: bigint }
  | { kind: 'boolean'; value: boolean };

/**
 * A value read from a source target (as its driver gives it, see
 * sql-driver.ts) turned into the column's DuckDB type: SQLite's 0/1 booleans
 * become BOOLEAN, PostgreSQL's parsed jsonb becomes JSON text again, integers
 * become BIGINT. A value that cannot be read as the column's type fails
 * loudly, naming the column, rather than being exported wrong.
 */
export function exportValue(column: ColumnDef, table: string, source: Dialect, value: unknown): ExportValue {
  if (value === null || value === undefined) return { kind: 'null' };
  const wrong = (): Error => new TypeError(`${table}.${column.name}: cannot export ${JSON.stringify(value)} as ${column.type}`);
  switch (column.type) {
    case 'text':
      return { kind: 'varchar', value: typeof value === 'string' ? value : String(value) };
    case 'json':
      // pg parses jsonb (a JSON string arrives as a JS string too), so only its values are re-serialized.
      if (source === 'postgres') return { kind: 'varchar', value: JSON.stringify(value) };
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
  }
}
