import type { TableDef } from './schema.js';

/**
 * `ON CONFLICT (pk) DO UPDATE SET …` (or `DO NOTHING`) as SQLite, DuckDB and
 * PostgreSQL all accept it.
 */
export function onConflictClause(table: TableDef, onConflict: 'replace' | 'ignore'): string {
  const head = `ON CONFLICT (${table.primaryKey.join(', ')})`;
  if (onConflict === 'ignore') return `${head} DO NOTHING`;
  const updates = table.columns.filter((c) => !table.primaryKey.includes(c.name)).map((c) => `${c.name} = excluded.${c.name}`);
  return `${head} DO UPDATE SET ${updates.join(', ')}`;
}
