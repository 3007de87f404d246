import { frozenTable } from '../src/store/migration/frozen-table.js';
import type { MigrationStep } from '../src/store/migration/migration-step.js';
import { TYPES } from './20261123000000_typed_time.js';

/**
 * verify_runs and verify_findings (`ivsync verify`). `ifMissing`: releases
 * before the migrations were frozen created them in the first migration.
 */
export const name = '20261123150000_verify';

const verifyRuns = frozenTable(
  'verify_runs',
  ['id'],
  [
    'id text!',
    'started_at timestamp!',
    'finished_at timestamp',
    'account text',
    'budget integer!',
    'seed text!',
    'requests integer!',
    'windows_checked integer!',
    'sessions_checked integer!',
    'findings integer!',
    'repaired integer',
    'status text!',
    'error text',
    'holder text',
  ],
);
const verifyFindings = frozenTable(
  'verify_findings',
  ['run_id', 'seq'],
  [
    'run_id text!',
    'seq integer!',
    'account text!',
    'resource text!',
    'service_id text!',
    'kind text!',
    'column_name text',
    'stored_value text',
    'service_value text',
    'window_start integer!',
    'repaired boolean!',
  ],
  [['account', 'resource', 'service_id']],
);

export const steps: readonly MigrationStep[] = [
  { kind: 'createTable', table: verifyRuns, types: TYPES, ifMissing: true },
  { kind: 'createTable', table: verifyFindings, types: TYPES, ifMissing: true },
];
