import type { Dialect } from '../../src/schema/dialect.js';
import { TABLES, type ColumnType } from '../../src/schema/schema.js';
import type { QueryableSink } from '../../src/store/sql-sink.js';

/** Every column's type as the target's own catalog names it, by `table.column`. */
export async function catalogTypes(sink: QueryableSink, dialect: Dialect): Promise<Map<string, string>> {
  const names = TABLES.map((def) => `'${def.name}'`).join(', ');
  const sql: Record<Dialect, string> = {
    sqlite:
      `SELECT m.name AS table_name, p.name AS column_name, lower(p.type) AS type FROM sqlite_master m, ` +
      `pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name IN (${names})`,
    duckdb:
      `SELECT table_name, column_name, data_type AS type FROM information_schema.columns WHERE table_schema = ` +
      `'main' AND table_name IN (${names})`,
    postgres:
      `SELECT table_name, column_name, udt_name AS type FROM information_schema.columns WHERE table_schema = ` +
      `current_schema() AND table_name IN (${names})`,
  };
  const rows = await sink.query(sql[dialect]);
  return new Map(rows.map((r) => [`${String(r.table_name)}.${String(r.column_name)}`, String(r.type)]));
}

/** What each catalog says for the column types that differ between targets. */
export const CATALOG_TYPES: Readonly<Record<'timestamp' | 'json', Record<Dialect, string>>> = {
  timestamp: { sqlite: 'text', duckdb: 'TIMESTAMP WITH TIME ZONE', postgres: 'timestamptz' },
  json: { sqlite: 'text', duckdb: 'JSON', postgres: 'json' },
};

/** `table.column` of every column of the type. */
export function columnsOf(type: ColumnType): string[] {
  return TABLES.flatMap((def) => def.columns.filter((c) => c.type === type).map((c) => `${def.name}.${c.name}`));
}
