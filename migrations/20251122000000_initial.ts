import type { Knex } from 'knex';
import { applyStepsWithKnex, revertStepsWithKnex } from '../src/store/knex-ddl.js';
import type { MigrationStep } from '../src/store/migration-step.js';
import { TABLES } from '../src/store/schema.js';
import { VIEWS } from '../src/store/views.js';

/**
 * Every table `TABLES` holds and every view. A table added to `TABLES` later
 * also needs a later migration that creates it `ifMissing` (see
 * src/store/migration-step.ts), for targets that ran this one before it existed.
 */
export const name = '20251122000000_initial';

export const steps: readonly MigrationStep[] = [
  ...TABLES.map((table): MigrationStep => ({ kind: 'createTable', table })),
  ...VIEWS.map((view): MigrationStep => ({ kind: 'createView', view })),
];

export function up(knex: Knex): Promise<void> {
  return applyStepsWithKnex(knex, steps);
}

export function down(knex: Knex): Promise<void> {
  return revertStepsWithKnex(knex, steps);
}
