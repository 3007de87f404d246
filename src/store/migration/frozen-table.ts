import type { StepColumn, StepTable } from './migration-step.js';
import type { ColumnType } from '../../schema/table-def.js';

const COLUMN_TYPES: readonly ColumnType[] = ['text', 'real', 'integer', 'boolean', 'json', 'timestamp'];

/**
 * A table as a migration freezes it, written as compactly as DDL: each column
 * is `'name type'`, with `!` after the type for NOT NULL (`'raw json!'`);
 * `indexes` lists the columns of each non-unique index. Primary key columns are
 * NOT NULL whether marked or not.
 */
export function frozenTable(
  name: string,
  primaryKey: readonly string[],
  columns: readonly string[],
  indexes: readonly (readonly string[])[] = [],
): StepTable {
  const parsed = columns.map((spec) => frozenColumn(name, spec));
  for (const key of primaryKey) {
    if (!parsed.some((c) => c.name === key)) throw new Error(`${name}: primary key column ${key} is not a column`);
  }
  return { name, primaryKey, columns: parsed, indexes: indexes.map((columns) => ({ columns })) };
}

function frozenColumn(table: string, spec: string): StepColumn {
  const match = /^(\w+) (\w+)(!?)$/.exec(spec);
  const type = COLUMN_TYPES.find((t) => t === match?.[2]);
  if (!match || type === undefined) throw new Error(`${table}: column '${spec}' is not 'name type' or 'name type!'`);
  return { name: match[1]!, type, nullable: match[3] !== '!' };
}
