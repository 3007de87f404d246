import type { Knex } from 'knex';
import { applyStepsWithKnex, revertStepsWithKnex } from '../src/store/knex-ddl.js';
import type { MigrationStep } from '../src/store/migration-step.js';
import { table } from '../src/store/schema.js';
import { VIEWS } from '../src/store/views.js';

/**
 * session_refresh (the refresh policy's per-session state), for targets that
 * ran the initial migration before the table was in TABLES (on a new target
 * the initial migration created it already and the step does nothing), and
 * v_sync_health again with its refresh tier and webhook columns.
 */
export const name = '20261123200000_session_refresh';

const DROP_HEALTH = 'DROP VIEW IF EXISTS v_sync_health';

export const steps: readonly MigrationStep[] = [
  { kind: 'createTable', table: table('session_refresh'), ifMissing: true },
  // Reverting re-creates nothing here: the createView step's revert already dropped the view, and the older view is left out.
  { kind: 'sql', up: { sqlite: DROP_HEALTH, postgres: DROP_HEALTH, duckdb: DROP_HEALTH }, down: { sqlite: 'SELECT 1', postgres: 'SELECT 1', duckdb: 'SELECT 1' } },
  { kind: 'createView', view: VIEWS.find((v) => v.name === 'v_sync_health')! },
];

export function up(knex: Knex): Promise<void> {
  return applyStepsWithKnex(knex, steps);
}

export function down(knex: Knex): Promise<void> {
  return revertStepsWithKnex(knex, steps);
}
