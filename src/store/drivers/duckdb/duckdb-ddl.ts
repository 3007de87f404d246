import type {
  ColumnRetype,
  MigrationStep,
  StepColumn,
  StepTable,
  StepTypes,
  StepView,
} from '../../migration/migration-step.js';
import { retypeExpression, sameSqlType } from '../../migration/retype-column.js';
import { viewSql } from '../../migration/view-sql.js';

function columnSql(column: StepColumn, type: string, notNull: boolean): string {
  return `${column.name} ${type}${notNull ? ' NOT NULL' : ''}`;
}

/**
 * CREATE TABLE for DuckDB. Secondary indexes are left out on purpose: DuckDB
 * refuses `ON CONFLICT DO UPDATE` on a column that an index references, and
 * its zone maps already serve the range scans the indexes exist for in the row
 * stores. The primary key is left out too unless `keyed`: a table that grows
 * with the history goes without it (duckdb-keyless.ts); its columns stay NOT NULL.
 */
export function duckdbCreateTable(def: StepTable, types: StepTypes, keyed: boolean): string {
  const columns = def.columns.map((c) => {
    const notNull = c.nullable === false || def.primaryKey.includes(c.name);
    return columnSql(c, types[c.type].duckdb, notNull);
  });
  const key = keyed ? [`PRIMARY KEY (${def.primaryKey.join(', ')})`] : [];
  return `CREATE TABLE ${def.name} (${[...columns, ...key].join(', ')})`;
}

/**
 * A table created with its primary key, rebuilt without it: DuckDB cannot
 * drop a constraint, and views read tables by name, so they need no change.
 */
function rebuildSql(def: StepTable, create: string): string[] {
  const columns = def.columns.map((c) => c.name).join(', ');
  const former = `${def.name}__keyed`;
  return [
    `ALTER TABLE ${def.name} RENAME TO ${former}`,
    create,
    `INSERT INTO ${def.name} (${columns}) SELECT ${columns} FROM ${former}`,
    `DROP TABLE ${former}`,
  ];
}

/** What the DuckDB renderer needs to know about the current catalog. */
export interface DuckdbCatalog {
  hasTable(name: string): Promise<boolean>;
  hasColumn(table: string, column: string): Promise<boolean>;
  /** The column's type as the catalog names it; null when there is no such column. */
  columnType(table: string, column: string): Promise<string | null>;
  /** Whether the table has a PRIMARY KEY constraint. */
  hasPrimaryKey(table: string): Promise<boolean>;
}

function alterSql(column: ColumnRetype, from: string, to: string): string {
  return (
    `ALTER TABLE ${column.table} ALTER COLUMN ${column.column} SET DATA TYPE ${to} USING ` +
    `${retypeExpression('duckdb', column.column, from, to)}`
  );
}

/**
 * The columns not of their `to` type yet, retyped one statement each (DuckDB
 * changes one column per ALTER), between dropping and creating `views` again.
 * None of the columns ivsync retypes is in a primary key, the only index a
 * DuckDB target has.
 */
async function retypeStatements(
  columns: readonly ColumnRetype[],
  views: readonly StepView[],
  catalog: DuckdbCatalog,
): Promise<string[]> {
  const alters: string[] = [];
  for (const column of columns) {
    const current = await catalog.columnType(column.table, column.column);
    if (current === null) throw new Error(`no column ${column.column} in table ${column.table}`);
    if (!sameSqlType(current, column.to.duckdb)) alters.push(alterSql(column, current, column.to.duckdb));
  }
  if (alters.length === 0) return [];
  return [
    ...views.map((v) => `DROP VIEW IF EXISTS ${v.name}`),
    ...alters,
    ...views.map((v) => `CREATE VIEW ${v.name} AS ${viewSql(v, 'duckdb')}`),
  ];
}

/** The statements that apply one migration's steps in DuckDB. */
export async function duckdbUpStatements(steps: readonly MigrationStep[], catalog: DuckdbCatalog): Promise<string[]> {
  const out: string[] = [];
  for (const step of steps) {
    switch (step.kind) {
      case 'createTable':
        if (step.ifMissing && (await catalog.hasTable(step.table.name))) break;
        out.push(duckdbCreateTable(step.table, step.types, step.duckdbKey ?? true));
        break;
      case 'addColumn':
        if (await catalog.hasColumn(step.table, step.column)) break;
        out.push(`ALTER TABLE ${step.table} ADD COLUMN ${step.column} ${step.type.duckdb}`);
        break;
      case 'createView':
        out.push(`CREATE VIEW ${step.view.name} AS ${viewSql(step.view, 'duckdb')}`);
        break;
      case 'dropViews':
        out.push(...step.names.map((name) => `DROP VIEW IF EXISTS ${name}`));
        break;
      case 'sql':
        out.push(step.up.duckdb);
        break;
      case 'retypeColumns':
        out.push(...(await retypeStatements(step.columns, step.views, catalog)));
        break;
      case 'duckdbKeyless':
        for (const def of step.tables) {
          if (!(await catalog.hasPrimaryKey(def.name))) continue;
          out.push(...rebuildSql(def, duckdbCreateTable(def, step.types, false)));
        }
        break;
      case 'sqliteWithoutRowid':
        break;
    }
  }
  return out;
}

/**
 * The statements that revert one migration's steps in DuckDB, in reverse
 * order. Retyped columns go back to their former types unconditionally:
 * reverting assumes the migration was applied.
 */
export function duckdbDownStatements(steps: readonly MigrationStep[]): string[] {
  return [...steps].reverse().flatMap((step) => {
    switch (step.kind) {
      case 'createTable':
        return [`DROP TABLE IF EXISTS ${step.table.name}`];
      case 'addColumn':
        return [`ALTER TABLE ${step.table} DROP COLUMN ${step.column}`];
      case 'createView':
        return [`DROP VIEW IF EXISTS ${step.view.name}`];
      case 'dropViews':
        return [];
      case 'retypeColumns':
        return [
          ...step.views.map((v) => `DROP VIEW IF EXISTS ${v.name}`),
          ...step.columns
            .filter((c) => !sameSqlType(c.from.duckdb, c.to.duckdb))
            .map((c) => alterSql(c, c.to.duckdb, c.from.duckdb)),
          ...step.views.map((v) => `CREATE VIEW ${v.name} AS ${viewSql(v, 'duckdb')}`),
        ];
      case 'sql':
        return [step.down.duckdb];
      case 'duckdbKeyless':
        return step.tables.flatMap((def) => rebuildSql(def, duckdbCreateTable(def, step.types, true)));
      case 'sqliteWithoutRowid':
        return [];
    }
  });
}
