import type { ColumnDef, ColumnType, TableDef } from './table-def.js';

const col = (name: string, type: ColumnType, description: string, nullable = true): ColumnDef => ({
  name,
  type,
  description,
  nullable,
});

/**
 * What `ivsync verify` records: one row per run and one per finding. Part of
 * TABLES (schema.ts); declared here so the session tables stay readable there.
 * Only type imports from schema.ts: schema.ts imports this file at run time.
 */
export const VERIFY_TABLES: readonly TableDef[] = [
  {
    name: 'verify_runs',
    description:
      'One row per `ivsync verify` run: the sample of stored windows it paged again within its request budget, ' +
      'and how much drift it found between the service and the target.',
    primaryKey: ['id'],
    columns: [
      col('id', 'text', 'Run id (also in every log line of the run).', false),
      col('started_at', 'timestamp', 'When the run started.', false),
      col('finished_at', 'timestamp', 'When the run ended; null while running or after a crash.'),
      col('account', 'text', 'Account the run checked; null for all.'),
      col('budget', 'integer', 'Most requests the run could spend (--budget).', false),
      col(
        'seed',
        'text',
        'Seed of the sample: `--seed` with this value picks the same windows again (while the stored windows ' +
          'are the same).',
        false,
      ),
      col('requests', 'integer', 'Requests the run sent (retries included).', false),
      col('windows_checked', 'integer', 'Windows paged in full and compared.', false),
      col(
        'sessions_checked',
        'integer',
        'Sessions compared: returned by the service or stored, in the windows checked.',
        false,
      ),
      col('findings', 'integer', 'Rows the run wrote to verify_findings.', false),
      col('repaired', 'integer', 'Sessions a `--repair` run merged again or marked missing; null without --repair.'),
      col(
        'status',
        'text',
        "'running', 'succeeded' (every sampled window paged in full), 'partial' (the budget ran out inside a " +
          'window: what was paged was compared, no-longer-returned sessions there were not looked for), ' +
          "'failed', 'interrupted' or 'abandoned' (its process died).",
        false,
      ),
      col('error', 'text', 'One-line error of a failed run, or what a partial run left unchecked.'),
      col('holder', 'text', 'The process that ran it (host:pid:id, as in sync_leases).'),
    ],
  },
  {
    name: 'verify_findings',
    description:
      'What `ivsync verify` found: a session the service returns that the target lacks (or holds as missing), ' +
      'a stored session the service no longer returns, or a typed column whose stored value differs from what ' +
      'the service returns now.',
    primaryKey: ['run_id', 'seq'],
    indexes: [{ columns: ['account', 'resource', 'service_id'] }],
    columns: [
      col('run_id', 'text', 'The verify_runs row.', false),
      col('seq', 'integer', 'Number of the finding within its run, from 1.', false),
      col('account', 'text', 'Configured account name.', false),
      col('resource', 'text', "'authentications' or 'fingerprints'.", false),
      col('service_id', 'text', 'The session.', false),
      col(
        'kind',
        'text',
        "'missing_locally' (returned by the service, not stored or stored with missing_since set), " +
          "'not_returned' (stored, not missing, and no longer returned by a complete pass over its window) or " +
          "'changed' (column_name differs).",
        false,
      ),
      col(
        'column_name',
        'text',
        "The column that differs ('changed'); 'missing_since' for a session stored as missing that the service " +
          'returns; null otherwise.',
      ),
      col('stored_value', 'text', 'The stored value, as text (booleans true/false); null when none.'),
      col('service_value', 'text', 'The value the service returns now, as text; null when none.'),
      col(
        'window_start',
        'integer',
        'Start of the sync_windows window the session was checked in (epoch seconds).',
        false,
      ),
      col(
        'repaired',
        'boolean',
        'Whether a --repair run fixed it (merged the observation, marked the session missing) in the same ' +
          'transaction that recorded it.',
        false,
      ),
    ],
  },
];
