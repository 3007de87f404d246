import { frozenTable } from '../src/store/migration/frozen-table.js';
import type { MigrationStep } from '../src/store/migration/migration-step.js';
import { TYPES } from './20261123000000_typed_time.js';

/**
 * session_history as a WITHOUT ROWID table in SQLite: its key (service_id,
 * resource, valid_from) is the table, where a rowid table keeps the key a
 * second time in an index of its own. The table holds a version per stored
 * session, and the index was two fifths of it. The views that read it are
 * created again as they were. Frozen as of this step; DuckDB and PostgreSQL
 * are left as they are.
 */
export const name = '20261126400000_history_without_rowid';

const sessionHistory = frozenTable(
  'session_history',
  ['service_id', 'resource', 'valid_from'],
  [
    'service_id text!',
    'resource text!',
    'account text!',
    'valid_from timestamp!',
    'valid_to timestamp',
    'result_id text',
    'result_final boolean',
    'flag text',
    'missing_since timestamp',
    'update_counter integer',
    'source text!',
    'api_version text!',
  ],
);

export const steps: readonly MigrationStep[] = [{ kind: 'sqliteWithoutRowid', tables: [sessionHistory], types: TYPES }];
