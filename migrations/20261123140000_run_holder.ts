import type { Knex } from 'knex';
import { applyStepsWithKnex, revertStepsWithKnex } from '../src/store/knex-ddl.js';
import type { MigrationStep } from '../src/store/migration-step.js';

/** sync_runs.holder: which process ran a run, so a run whose process died can be found and shown as abandoned. */
export const name = '20261123140000_run_holder';

export const steps: readonly MigrationStep[] = [{ kind: 'addColumn', table: 'sync_runs', column: 'holder' }];

export function up(knex: Knex): Promise<void> {
  return applyStepsWithKnex(knex, steps);
}

export function down(knex: Knex): Promise<void> {
  return revertStepsWithKnex(knex, steps);
}
