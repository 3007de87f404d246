import type { MigrationStep } from '../src/store/migration/migration-step.js';

/**
 * sync_runs.throttled and retry_wait_ms: the 429s a run met and how long its
 * retries waited, so the status page's budget reads them from the target.
 */
export const name = '20261126300000_run_throttling';

const BIGINT = { sqlite: 'bigint', postgres: 'bigint', duckdb: 'BIGINT' } as const;

export const steps: readonly MigrationStep[] = [
  { kind: 'addColumn', table: 'sync_runs', column: 'throttled', type: BIGINT },
  { kind: 'addColumn', table: 'sync_runs', column: 'retry_wait_ms', type: BIGINT },
];
