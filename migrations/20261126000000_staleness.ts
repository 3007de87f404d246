import type { Knex } from 'knex';
import { applyStepsWithKnex, revertStepsWithKnex } from '../src/store/knex-ddl.js';
import type { MigrationStep } from '../src/store/migration-step.js';
import type { TableDef } from '../src/store/schema.js';
import { VIEWS } from '../src/store/views.js';

/**
 * What staleness reporting needs: each run's refresh budget and spending in
 * sync_runs, the change_lags table (observed lag of every stored change the
 * service dated), and v_sync_health again with the age of the last checks.
 * The columns and the table are written out as they were at this step, not
 * read from today's schema, so the step means the same on any later release;
 * on a target the initial migration made with them already, each is skipped.
 */
export const name = '20261126000000_staleness';

const BIGINT = { sqlite: 'bigint', postgres: 'bigint', duckdb: 'BIGINT' } as const;

const CHANGE_LAGS: TableDef = {
  name: 'change_lags',
  description: 'Observed lag of each stored change to a session that the service dated.',
  primaryKey: ['resource', 'service_id', 'changed_at'],
  indexes: [{ columns: ['account', 'resource', 'stored_at'] }],
  columns: [
    { name: 'resource', type: 'text', nullable: false, description: 'authentications or fingerprints.' },
    { name: 'service_id', type: 'text', nullable: false, description: 'The session.' },
    { name: 'changed_at', type: 'timestamp', nullable: false, description: 'When the service changed it.' },
    { name: 'account', type: 'text', nullable: false, description: 'Account whose observation stored it.' },
    { name: 'stored_at', type: 'timestamp', nullable: false, description: 'When ivsync stored it.' },
    { name: 'lag_seconds', type: 'real', nullable: false, description: 'stored_at minus changed_at.' },
    { name: 'source', type: 'text', nullable: false, description: 'search, lookup, get or webhook.' },
  ],
};

const DROP_HEALTH = 'DROP VIEW IF EXISTS v_sync_health';
const NOTHING = { sqlite: 'SELECT 1', postgres: 'SELECT 1', duckdb: 'SELECT 1' };

export const steps: readonly MigrationStep[] = [
  { kind: 'addColumn', table: 'sync_runs', column: 'refresh_budget', type: BIGINT },
  { kind: 'addColumn', table: 'sync_runs', column: 'refresh_spent', type: BIGINT },
  { kind: 'createTable', table: CHANGE_LAGS, ifMissing: true },
  // Reverting leaves the older view out, as 20261123200000_session_refresh does.
  { kind: 'sql', up: { sqlite: DROP_HEALTH, postgres: DROP_HEALTH, duckdb: DROP_HEALTH }, down: NOTHING },
  { kind: 'createView', view: VIEWS.find((v) => v.name === 'v_sync_health')! },
];

export function up(knex: Knex): Promise<void> {
  return applyStepsWithKnex(knex, steps);
}

export function down(knex: Knex): Promise<void> {
  return revertStepsWithKnex(knex, steps);
}
