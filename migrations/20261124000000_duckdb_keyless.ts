import type { Knex } from 'knex';
import { DUCKDB_KEYLESS_TABLES } from '../src/store/duckdb-keyless.js';
import { applyStepsWithKnex, revertStepsWithKnex } from '../src/store/knex-ddl.js';
import type { MigrationStep } from '../src/store/migration-step.js';

/**
 * A DuckDB target's session tables without their primary key index, whose
 * size bounded the memory a backfill needs (see duckdb-keyless.ts). On a
 * target created since, the initial migration made them so already and the
 * step does nothing; SQLite and PostgreSQL keep their keys.
 */
export const name = '20261124000000_duckdb_keyless';

export const steps: readonly MigrationStep[] = [{ kind: 'duckdbKeyless', tables: DUCKDB_KEYLESS_TABLES }];

export function up(knex: Knex): Promise<void> {
  return applyStepsWithKnex(knex, steps);
}

export function down(knex: Knex): Promise<void> {
  return revertStepsWithKnex(knex, steps);
}
