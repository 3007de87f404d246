import type { Knex } from 'knex';
import type { Dialect } from '../../schema/dialect.js';
import type { ColumnRetype, MigrationStep, StepTable, StepTypes, StepView } from '../migration/migration-step.js';
import { retypeExpression, sameSqlType } from '../migration/retype-column.js';
import { viewSql } from '../migration/view-sql.js';
import { rebuildSqliteTable } from './sqlite/sqlite-rebuild.js';

/** The knex targets: SQLite (better-sqlite3) and PostgreSQL (pg). */
export type KnexDialect = Exclude<Dialect, 'duckdb'>;

export function knexDialect(knex: Knex): KnexDialect {
  const client: unknown = knex.client.config.client;
  if (client === 'better-sqlite3') return 'sqlite';
  if (client === 'pg' || client === 'postgres' || client === 'postgresql') return 'postgres';
  throw new Error(`unsupported knex client ${String(client)}`);
}

export function indexName(table: string, columns: readonly string[]): string {
  return `${table}_${columns.join('_')}_idx`;
}

function addColumn(t: Knex.CreateTableBuilder, name: string, type: string, notNull: boolean): void {
  const builder = t.specificType(name, type);
  if (notNull) builder.notNullable();
  else builder.nullable();
}

/** The columns, key and indexes of a frozen table, as knex builds them (also for a rebuild under another name). */
export function tableBuilder(
  knex: Knex,
  def: StepTable,
  dialect: KnexDialect,
  types: StepTypes,
): (t: Knex.CreateTableBuilder) => void {
  return (t) => {
    for (const column of def.columns) {
      const notNull = column.nullable === false || def.primaryKey.includes(column.name);
      addColumn(t, column.name, types[column.type][dialect], notNull);
    }
    t.primary([...def.primaryKey]);
    for (const index of def.indexes ?? []) {
      const name = index.name ?? indexName(def.name, index.columns);
      const predicate = index.where === undefined ? {} : { predicate: knex.whereRaw(index.where) };
      if (index.unique) t.unique([...index.columns], { indexName: name, ...predicate });
      else t.index([...index.columns], name, predicate);
    }
  };
}

async function createTable(knex: Knex, def: StepTable, dialect: KnexDialect, types: StepTypes): Promise<void> {
  await knex.schema.createTable(def.name, tableBuilder(knex, def, dialect, types));
}

/**
 * Each column's SQL type in the current schema, by `table.column` (PostgreSQL's own names: timestamptz, text, jsonb).
 */
async function postgresColumnTypes(knex: Knex): Promise<Map<string, string>> {
  // pg_catalog rather than information_schema: its views cost tens of milliseconds a query.
  const result = (await knex.raw(
    `SELECT c.relname AS table_name, a.attname AS column_name, t.typname AS type
     FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_type t ON t.oid = a.atttypid
     WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped`,
  )) as { rows: Array<{ table_name: string; column_name: string; type: string }> };
  return new Map(result.rows.map((r) => [`${r.table_name}.${r.column_name}`, r.type]));
}

/**
 * Retypes the columns that are not of their `to` type yet, around dropping
 * and creating `views` again. PostgreSQL rewrites a table for each ALTER
 * TABLE that changes a type, so each table's columns go in one statement.
 */
async function retypeColumns(
  knex: Knex,
  dialect: KnexDialect,
  columns: readonly ColumnRetype[],
  views: readonly StepView[],
): Promise<void> {
  if (dialect === 'sqlite') {
    const change = columns.find((r) => !sameSqlType(r.from.sqlite, r.to.sqlite));
    if (change) throw new Error(`SQLite cannot retype ${change.table}.${change.column} in place`);
    return;
  }
  const current = await postgresColumnTypes(knex);
  const clauses = new Map<string, string[]>();
  for (const r of columns) {
    const type = current.get(`${r.table}.${r.column}`);
    if (type === undefined) throw new Error(`no column ${r.column} in table ${r.table}`);
    if (sameSqlType(type, r.to.postgres)) continue;
    const clause =
      `ALTER COLUMN ${r.column} TYPE ${r.to.postgres} USING ` +
      `${retypeExpression('postgres', r.column, type, r.to.postgres)}`;
    clauses.set(r.table, [...(clauses.get(r.table) ?? []), clause]);
  }
  if (clauses.size === 0) return;
  for (const view of views) await knex.raw(`DROP VIEW IF EXISTS ${view.name}`);
  for (const [table, alters] of clauses) await knex.raw(`ALTER TABLE ${table} ${alters.join(', ')}`);
  for (const view of views) await knex.raw(`CREATE VIEW ${view.name} AS ${viewSql(view, dialect)}`);
}

/** Applies a migration's steps through knex (StaticMigrationSource's `up`). */
export async function applyStepsWithKnex(knex: Knex, steps: readonly MigrationStep[]): Promise<void> {
  const dialect = knexDialect(knex);
  for (const step of steps) {
    switch (step.kind) {
      case 'createTable':
        if (step.ifMissing && (await knex.schema.hasTable(step.table.name))) break;
        await createTable(knex, step.table, dialect, step.types);
        break;
      case 'addColumn': {
        if (await knex.schema.hasColumn(step.table, step.column)) break;
        await knex.schema.alterTable(step.table, (t) => addColumn(t, step.column, step.type[dialect], false));
        break;
      }
      case 'createView':
        await knex.raw(`CREATE VIEW ${step.view.name} AS ${viewSql(step.view, dialect)}`);
        break;
      case 'dropViews':
        for (const name of step.names) await knex.raw(`DROP VIEW IF EXISTS ${name}`);
        break;
      case 'sql':
        await knex.raw(step.up[dialect]);
        break;
      case 'retypeColumns':
        await retypeColumns(knex, dialect, step.columns, step.views);
        break;
      case 'duckdbKeyless':
        break;
      case 'sqliteWithoutRowid':
        if (dialect !== 'sqlite') break;
        for (const def of step.tables) {
          await rebuildSqliteTable(knex, def, tableBuilder(knex, def, dialect, step.types), true);
        }
        break;
    }
  }
}

/** Reverts a migration's steps through knex (StaticMigrationSource's `down`). */
export async function revertStepsWithKnex(knex: Knex, steps: readonly MigrationStep[]): Promise<void> {
  const dialect = knexDialect(knex);
  for (const step of [...steps].reverse()) {
    switch (step.kind) {
      case 'createTable':
        await knex.schema.dropTableIfExists(step.table.name);
        break;
      case 'addColumn':
        await knex.schema.alterTable(step.table, (t) => t.dropColumn(step.column));
        break;
      case 'createView':
        await knex.raw(`DROP VIEW IF EXISTS ${step.view.name}`);
        break;
      case 'dropViews':
        break;
      case 'sql':
        await knex.raw(step.down[dialect]);
        break;
      case 'retypeColumns':
        await retypeColumns(
          knex,
          dialect,
          step.columns.map((r) => ({ ...r, from: r.to, to: r.from })),
          step.views,
        );
        break;
      case 'duckdbKeyless':
        break;
      case 'sqliteWithoutRowid':
        if (dialect !== 'sqlite') break;
        for (const def of step.tables) {
          await rebuildSqliteTable(knex, def, tableBuilder(knex, def, dialect, step.types), false);
        }
        break;
    }
  }
}
