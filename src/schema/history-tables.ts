import type { ColumnDef, ColumnType, TableDef } from './table-def.js';

const col = (name: string, type: ColumnType, description: string, nullable = true): ColumnDef => ({
  name,
  type,
  description,
  nullable,
});

/**
 * History mode: the stored versions of sessions that changed (session_history,
 * a view in views.ts, adds the one version of each session that never did). Part of TABLES
 * (schema.ts); declared here so the session tables stay readable there. Only
 * type imports from schema.ts: schema.ts imports this file at run time.
 */
export const HISTORY_TABLES: readonly TableDef[] = [
  {
    name: 'session_versions',
    description:
      'The stored part of session_history (the view analysts read): every version of each session that changed ' +
      'at least once, the first one included. A session that never changed has no row here; session_history ' +
      'shows its one version from its row. A new row is written only when result_id, result_final, flag, ' +
      'missing_since or update_counter changes, in the same transaction as the session row it versions and ' +
      'under the same rule (an older update_counter never makes a version); on the first change the version the ' +
      'row told is written first, closed. valid_from is when the service says the session changed (v2 ' +
      "`timestamp.last_updated_at`), else when ivsync observed the change; a session's first version starts at " +
      'its created_at, and a change of missing_since alone at its observation. Two versions of one session never ' +
      'share a valid_from: a version observed at the same instant as the one before it starts a microsecond ' +
      'later. Targets that existed before history mode got one version per stored session, from its ' +
      'first_seen_at. In SQLite the table is WITHOUT ROWID: its key is the table, not an index kept beside it.',
    primaryKey: ['service_id', 'resource', 'valid_from'],
    columns: [
      col('service_id', 'text', 'The session (its row in the resource table).', false),
      col('resource', 'text', "'authentications' or 'fingerprints'.", false),
      col('account', 'text', 'Account whose token saw the version.', false),
      col(
        'valid_from',
        'timestamp',
        "When the version began: the service's change time (v2 last_updated_at) where it gives one, else the " +
          'observation time; created_at for the first version.',
        false,
      ),
      col('valid_to', 'timestamp', 'When the next version began; null for the current version.'),
      col('result_id', 'text', 'Result of the session in this version.'),
      col('result_final', 'boolean', 'Whether the result was final in this version.'),
      col('flag', 'text', 'Session flag in this version; null when none.'),
      col('missing_since', 'timestamp', 'missing_since of the session row in this version.'),
      col('update_counter', 'integer', 'update_counter of the session row in this version.'),
      col(
        'source',
        'text',
        "What observed the version: 'search', 'lookup', 'get', 'webhook' or 'verify' (`verify --repair`).",
        false,
      ),
      col('api_version', 'text', "Interface of the observation: '1.4' or '2'.", false),
    ],
  },
];
