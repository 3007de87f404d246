import type { MigrationStep } from './migration-step.js';
import { table as tableDef, type ColumnDef, type ColumnType, type TableDef } from './schema.js';
import { viewSql } from './views.js';

const DUCKDB_TYPES: Record<ColumnType, string> = {
  text: 'VARCHAR',
  real: 'DOUBLE',
  integer: 'BIGINT',
  boolean: 'BOOLEAN',
  json: 'JSON',
};

export function duckdbType(type: ColumnType): string {
  return DUCKDB_TYPES[type];
}

function columnSql(column: ColumnDef, notNull: boolean): string {
  return `${column.name} ${DUCKDB_TYPES[column.type]}${notNull ? ' NOT NULL' : ''}`;
}

/**
 * CREATE TABLE for DuckDB from the one schema definition. Secondary indexes
 * are left out on purpose: DuckDB refuses `ON CONFLICT DO UPDATE` on a column
 * that an index references, and its zone maps already serve the range scans
 * the indexes exist for in the row stores.
 */
export function duckdbCreateTable(def: TableDef): string {
  const columns = def.columns.map((c) => columnSql(c, c.nullable === false || def.primaryKey.includes(c.name)));
  return `CREATE TABLE ${def.name} (${[...columns, `PRIMARY KEY (${def.primaryKey.join(', ')})`].join(', ')})`;
}

/** What the DuckDB renderer needs to know about the current catalog. */
export interface DuckdbCatalog {
  hasTable(name: string): Promise<boolean>;
  hasColumn(table: string, column: string): Promise<boolean>;
}

/** The statements that apply one migration's steps in DuckDB. */
export async function duckdbUpStatements(steps: readonly MigrationStep[], catalog: DuckdbCatalog): Promise<string[]> {
  const out: string[] = [];
  for (const step of steps) {
    switch (step.kind) {
      case 'createTable':
        if (step.ifMissing && (await catalog.hasTable(step.table.name))) break;
        out.push(duckdbCreateTable(step.table));
        break;
      case 'addColumn': {
        if (await catalog.hasColumn(step.table, step.column)) break;
        const column = tableDef(step.table).columns.find((c) => c.name === step.column);
        if (!column) throw new Error(`no column ${step.column} in table ${step.table}`);
        out.push(`ALTER TABLE ${step.table} ADD COLUMN ${columnSql(column, false)}`);
        break;
      }
      case 'createView':
        out.push(`CREATE VIEW ${step.view.name} AS ${viewSql(step.view, 'duckdb')}`);
        break;
      case 'sql':
        out.push(step.up.duckdb);
        break;
    }
  }
  return out;
}

/** The statements that revert one migration's steps in DuckDB, in reverse order. */
export function duckdbDownStatements(steps: readonly MigrationStep[]): string[] {
  return [...steps].reverse().map((step) => {
    switch (step.kind) {
      case 'createTable':
        return `DROP TABLE IF EXISTS ${step.table.name}`;
      case 'addColumn':
        return `ALTER TABLE ${step.table} DROP COLUMN ${step.column}`;
      case 'createView':
        return `DROP VIEW IF EXISTS ${step.view.name}`;
      case 'sql':
        return step.down.duckdb;
    }
  });
}
