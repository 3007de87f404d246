import type { ColumnDef, ColumnType, TableDef } from './table-def.js';

const col = (name: string, type: ColumnType, description: string, nullable = true): ColumnDef => ({
  name,
  type,
  description,
  nullable,
});

/**
 * The refresh state of non-final sessions. Part of TABLES (schema.ts);
 * declared here so the session tables stay readable there. Only type imports
 * from schema.ts: schema.ts imports this file at run time.
 */
export const REFRESH_TABLES: readonly TableDef[] = [
  {
    name: 'session_refresh',
    description:
      'When `sync` last re-checked each non-final session (a GET, or its window paged again). A run checks ' +
      'every non-final session when that fits its refresh budget (`refresh.budgetShare`), else those younger ' +
      'than `refresh.hotSeconds` and then the stalest; a session a healthy webhook stream keeps up to date ' +
      'waits for a back-off that doubles per unchanged check up to `refresh.maxIntervalSeconds`. A session ' +
      'never re-checked has no row.',
    primaryKey: ['resource', 'service_id'],
    indexes: [{ columns: ['account', 'resource'] }],
    columns: [
      col('resource', 'text', 'authentications or fingerprints.', false),
      col('service_id', 'text', 'The session (its row in the resource table).', false),
      col('account', 'text', 'Account whose refresh checked it.', false),
      col(
        'tier',
        'text',
        "'hot' (younger than refresh.hotSeconds and not delivered by a healthy webhook stream: checked every " +
          "run) or 'backoff', as of its last check.",
        false,
      ),
      col('checked_at', 'timestamp', 'When the refresh last checked it.', false),
      col(
        'interval_seconds',
        'integer',
        'Back-off after that check; it paces only a session a healthy webhook stream covers, due this long ' +
          'after checked_at.',
        false,
      ),
    ],
  },
  {
    name: 'change_lags',
    description:
      'One row per change ivsync stored to a session it held, where the service said when the change happened: ' +
      "v2's `timestamp.last_updated_at`, else, for a webhook delivery, the delivery's arrival. `lag_seconds` is the " +
      'observed lag (stored_at minus changed_at): how long the copy was behind the service. Sessions new to the ' +
      "target are not changes (their freshness is the checkpoints' lag); a change seen again (a GET after its " +
      'delivery) is kept once.',
    primaryKey: ['resource', 'service_id', 'changed_at'],
    indexes: [{ columns: ['account', 'resource', 'stored_at'] }],
    columns: [
      col('resource', 'text', 'authentications or fingerprints.', false),
      col('service_id', 'text', 'The session (its row in the resource table).', false),
      col(
        'changed_at',
        'timestamp',
        'When the service changed it (last_updated_at; for a delivery without one, when the delivery arrived).',
        false,
      ),
      col('account', 'text', 'Account whose observation stored the change.', false),
      col(
        'stored_at',
        'timestamp',
        'When ivsync observed and stored the change (the observation time of the page, GET or delivery).',
        false,
      ),
      col('lag_seconds', 'real', 'stored_at minus changed_at, seconds (0 when the clocks disagree that way).', false),
      col('source', 'text', "How the change arrived: 'search', 'lookup', 'get' or 'webhook'.", false),
    ],
  },
];
