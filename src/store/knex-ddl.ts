import type { Knex } from 'knex';
import type { Dialect } from './dialect.js';
import type { MigrationStep } from './migration-step.js';
import { table as tableDef, type ColumnDef, type TableDef } from './schema.js';
import { viewSql } from './views.js';

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

function addColumn(t: Knex.CreateTableBuilder, column: ColumnDef, dialect: KnexDialect, pk: readonly string[]): void {
  let builder: Knex.ColumnBuilder;
  switch (column.type) {
    case 'text':
      builder = t.text(column.name);
      break;
    case 'real':
      builder = t.double(column.name);
      break;
    case 'integer':
      builder = t.bigInteger(column.name);
      break;
    case 'boolean':
      builder = t.boolean(column.name);
      break;
    case 'json':
      // SQLite keeps JSON as text (its json_* functions read it); PostgreSQL parses it into jsonb.
      builder = dialect === 'postgres' ? t.jsonb(column.name) : t.text(column.name);
      break;
  }
  if (column.nullable === false || pk.includes(column.name)) builder.notNullable();
  else builder.nullable();
}

async function createTable(knex: Knex, def: TableDef, dialect: KnexDialect): Promise<void> {
  await knex.schema.createTable(def.name, (t) => {
    for (const column of def.columns) addColumn(t, column, dialect, def.primaryKey);
    t.primary([...def.primaryKey]);
    for (const index of def.indexes ?? []) {
      const name = indexName(def.name, index.columns);
      if (index.unique) t.unique([...index.columns], { indexName: name });
      else t.index([...index.columns], name);
    }
  });
}

/** Applies a migration's steps through knex (the `up` of every migration file). */
export async function applyStepsWithKnex(knex: Knex, steps: readonly MigrationStep[]): Promise<void> {
  const dialect = knexDialect(knex);
  for (const step of steps) {
    switch (step.kind) {
      case 'createTable':
        if (step.ifMissing && (await knex.schema.hasTable(step.table.name))) break;
        await createTable(knex, step.table, dialect);
        break;
      case 'addColumn': {
        if (await knex.schema.hasColumn(step.table, step.column)) break;
        const def = tableDef(step.table);
        const column = def.columns.find((c) => c.name === step.column);
        if (!column) throw new Error(`no column ${step.column} in table ${step.table}`);
        // A column added later cannot be NOT NULL without a default on existing rows.
        await knex.schema.alterTable(step.table, (t) => addColumn(t, { ...column, nullable: true }, dialect, []));
        break;
      }
      case 'createView':
        await knex.raw(`CREATE VIEW ${step.view.name} AS ${viewSql(step.view, dialect)}`);
        break;
      case 'sql':
        await knex.raw(step.up[dialect]);
        break;
    }
  }
}

/** Reverts a migration's steps through knex (the `down` of every migration file). */
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
      case 'sql':
        await knex.raw(step.down[dialect]);
        break;
    }
  }
}
