import type { Knex } from 'knex';
import type { SqlTypes } from '../src/store/column-sql-type.js';
import { applyStepsWithKnex, revertStepsWithKnex } from '../src/store/knex-ddl.js';
import type { ColumnRetype, MigrationStep } from '../src/store/migration-step.js';
import { TABLES } from '../src/store/schema.js';
import { VIEWS_BEFORE_REFRESH } from '../src/store/views.js';

/**
 * Typed times for analysts: every `timestamp` column (the `*_at` columns and
 * missing_since) becomes a timestamp with time zone in DuckDB and PostgreSQL,
 * its ISO 8601 text cast, microseconds kept; SQLite keeps the text. And JSON
 * in PostgreSQL becomes `json` instead of `jsonb`, which keeps the text as the
 * service sent it (jsonb had reordered keys and dropped duplicates already;
 * those are not brought back). A target created since has these types from
 * the initial migration, and nothing is done to it.
 */
export const name = '20261123000000_typed_time';

const TEXT_TIME: SqlTypes = { sqlite: 'text', postgres: 'text', duckdb: 'VARCHAR' };
const TYPED_TIME: SqlTypes = { sqlite: 'text', postgres: 'timestamptz', duckdb: 'TIMESTAMPTZ' };
const JSONB: SqlTypes = { sqlite: 'text', postgres: 'jsonb', duckdb: 'JSON' };
const JSON_TEXT: SqlTypes = { sqlite: 'text', postgres: 'json', duckdb: 'JSON' };

const columns: ColumnRetype[] = TABLES.flatMap((table) =>
  table.columns.flatMap((column): ColumnRetype[] => {
    if (column.type === 'timestamp') return [{ table: table.name, column: column.name, from: TEXT_TIME, to: TYPED_TIME }];
    if (column.type === 'json') return [{ table: table.name, column: column.name, from: JSONB, to: JSON_TEXT }];
    return [];
  }),
);

export const steps: readonly MigrationStep[] = [{ kind: 'retypeColumns', columns, views: VIEWS_BEFORE_REFRESH }];

export function up(knex: Knex): Promise<void> {
  return applyStepsWithKnex(knex, steps);
}

export function down(knex: Knex): Promise<void> {
  return revertStepsWithKnex(knex, steps);
}
