import type { MigrationStep } from '../src/store/migration/migration-step.js';
import { TYPES } from './20261123000000_typed_time.js';

/** sync_runs.holder: which process ran a run, so a run whose process died can be found and shown as abandoned. */
export const name = '20261123140000_run_holder';

export const steps: readonly MigrationStep[] = [
  { kind: 'addColumn', table: 'sync_runs', column: 'holder', type: TYPES.text },
];
