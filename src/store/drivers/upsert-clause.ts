import type { TableDef } from '../../schema/schema.js';
import type { OnConflict } from './sql-driver.js';

/**
 * `ON CONFLICT (pk) DO UPDATE SET …` (or `DO NOTHING`) as SQLite, DuckDB and
 * PostgreSQL all accept it; nothing for `fail`, where a conflict is an error.
 */
export function onConflictClause(table: TableDef, onConflict: OnConflict): string {
  if (onConflict === 'fail') return '';
  const head = `ON CONFLICT (${table.primaryKey.join(', ')})`;
  if (onConflict === 'ignore') return `${head} DO NOTHING`;
  const updates = table.columns
    .filter((c) => !table.primaryKey.includes(c.name))
    .map((c) => `${c.name} = excluded.${c.name}`);
  return `${head} DO UPDATE SET ${updates.join(', ')}`;
}
