import type { Knex } from 'knex';
import { applyStepsWithKnex, revertStepsWithKnex } from '../src/store/knex-ddl.js';
import type { MigrationStep } from '../src/store/migration-step.js';
import { table } from '../src/store/schema.js';

/**
 * verify_runs and verify_findings (`ivsync verify`), for targets that ran the
 * initial migration before these tables were in TABLES; on a new target the
 * initial migration created them already and these steps do nothing.
 */
export const name = '20261123150000_verify';

export const steps: readonly MigrationStep[] = [
  { kind: 'createTable', table: table('verify_runs'), ifMissing: true },
  { kind: 'createTable', table: table('verify_findings'), ifMissing: true },
];

export function up(knex: Knex): Promise<void> {
  return applyStepsWithKnex(knex, steps);
}

export function down(knex: Knex): Promise<void> {
  return revertStepsWithKnex(knex, steps);
}
