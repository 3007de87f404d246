import type { MigrationStep, StepView } from '../src/store/migration/migration-step.js';
import { syncHealth as onePass } from './20261127000000_sync_health_one_pass.js';

/**
 * v_sync_health again, its non-final sessions chosen by `s.result_final =
 * FALSE` instead of `NOT s.result_final`: the same rows (NULL is neither),
 * but the condition of the partial index of 20261201000000_non_final_index,
 * which SQLite uses only for a query that spells it so. `NOT` read every
 * session of the history. Otherwise the view of 20261127000000_sync_health_one_pass,
 * which is frozen. Frozen as of this step.
 */
export const name = '20261201100000_sync_health_indexed';

const syncHealth: StepView = {
  ...onePass,
  sql: onePass.sql.replaceAll('NOT s.result_final AND', 's.result_final = FALSE AND'),
};

export const steps: readonly MigrationStep[] = [
  { kind: 'dropViews', names: ['v_sync_health'] },
  { kind: 'createView', view: syncHealth },
];
