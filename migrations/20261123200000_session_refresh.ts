import type { Knex } from 'knex';
import { applyStepsWithKnex, revertStepsWithKnex } from '../src/store/knex-ddl.js';
import type { MigrationStep } from '../src/store/migration-step.js';
import { table } from '../src/store/schema.js';

/**
 * session_refresh (the refresh policy's per-session state), for targets that
 * ran the initial migration before the table was in TABLES; on a new target
 * the initial migration created it already and the step does nothing.
 */
export const name = '20261123200000_session_refresh';

export const steps: readonly MigrationStep[] = [{ kind: 'createTable', table: table('session_refresh'), ifMissing: true }];

export function up(knex: Knex): Promise<void> {
  return applyStepsWithKnex(knex, steps);
}

export function down(knex: Knex): Promise<void> {
  return revertStepsWithKnex(knex, steps);
}
