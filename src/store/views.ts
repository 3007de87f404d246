import { CHECK_AGE_PERCENTILES, CHECKED_EPOCH, checkAgeSql } from './runs/check-age-sql.js';
import { nonFinal } from '../schema/session-table.js';
import type { Dialect } from '../schema/dialect.js';
import type { StepView } from './migration/migration-step.js';
import { table, type ViewDef } from '../schema/schema.js';

export { viewSql } from './migration/view-sql.js';

/**
 * A view whose SQL is portable except for small marked pieces: `{{name}}` in
 * `sql` stands for `fragments[name][dialect]` (the current time, for one), so a
 * dialect difference is a fragment, never a second copy of the query.
 */
export interface DialectViewDef extends ViewDef, StepView {}

const NOW_EPOCH: Record<Dialect, string> = {
  sqlite: "CAST(strftime('%s', 'now') AS REAL)",
  postgres: 'EXTRACT(EPOCH FROM CURRENT_TIMESTAMP)',
  duckdb: 'EXTRACT(EPOCH FROM CURRENT_TIMESTAMP)',
};

/**
 * The UTC day of a session's creation: the date of created_at in UTC, whatever
 * the session's time zone (an analyst's DuckDB shell runs in local time). In
 * SQLite created_at is ISO text in UTC, so the day is its first ten characters.
 */
const UTC_DAY: Record<Dialect, string> = {
  sqlite: 'substr(created_at, 1, 10)',
  postgres: "CAST(created_at AT TIME ZONE 'UTC' AS DATE)",
  duckdb: "CAST(created_at AT TIME ZONE 'UTC' AS DATE)",
};

/** The columns of v_latest_authentications: every column of authentications. */
export const LATEST_AUTHENTICATION_COLUMNS = table('authentications')
  .columns.map((c) => c.name)
  .join(', ');

// SQLite stores booleans as 0/1; `CASE WHEN col` reads 0/1 and true/false alike.
const finalShare = (resource: string): string =>
  `(SELECT AVG(CASE WHEN s.result_final THEN 1.0 ELSE 0.0 END) FROM ${resource} s WHERE s.account = w.account ` +
  `AND s.missing_since IS NULL)`;

const lastRun = (column: string): string =>
  `(SELECT r.${column} FROM sync_runs r WHERE r.account = w.account OR r.account IS NULL ORDER BY r.started_at ` +
  `DESC, r.id DESC LIMIT 1)`;

// Lease names are `<kind>:<account>` (src/store/leases/lease-names.ts).
const lease = (kind: string, column: string): string =>
  `(SELECT l.${column} FROM sync_leases l WHERE l.name = '${kind}:' || w.account)`;

/**
 * The non-final sessions of `resource` of the row's account with their
 * refresh state; `tier` is 'unchecked' for a session never re-checked.
 * v_sync_health counts them per tier (status reads the same through check-age-sql.ts).
 */
export const refreshStateFrom = (resource: string): string =>
  `FROM ${resource} s LEFT JOIN session_refresh r ON r.resource = '${resource}' AND r.service_id = s.service_id
   WHERE ${nonFinal('s.result_final')} AND s.missing_since IS NULL`;

/**
 * Per account of `resource`: its non-final sessions per refresh tier and the
 * oldest check of the re-checked tiers, in one pass over the sessions and
 * their refresh rows (the view read them once per figure before, and DuckDB
 * held a join for each: 402 MB of a 10M-session export).
 */
const tierSummary = (resource: string): string => `SELECT s.account AS account, '${resource}' AS resource,
    COUNT(CASE WHEN r.tier = 'hot' THEN 1 END) AS hot_sessions,
    COUNT(CASE WHEN r.tier = 'backoff' THEN 1 END) AS backoff_sessions,
    COUNT(CASE WHEN COALESCE(r.tier, 'unchecked') = 'unchecked' THEN 1 END) AS unchecked_sessions,
    MIN(CASE WHEN r.tier = 'hot' THEN r.checked_at END) AS oldest_hot_check_at,
    MIN(CASE WHEN r.tier = 'backoff' THEN r.checked_at END) AS oldest_backoff_check_at
  ${refreshStateFrom(resource)}
  GROUP BY s.account`;

const CHECK_TIERS = ['hot', 'backoff', 'unchecked'] as const;
const CHECK_FIGURES = [
  ...CHECK_AGE_PERCENTILES.map((p) => [`p${p}`, `p${p}_epoch`] as const),
  ['max', 'oldest_epoch'] as const,
];
const pivot = CHECK_TIERS.flatMap((t) =>
  CHECK_FIGURES.map(([name, epoch]) => `MAX(CASE WHEN a.tier = '${t}' THEN a.${epoch} END) AS ${t}_${name}_epoch`),
);

/** Check times (check-age-sql.ts) of both resources: a row per account and resource, a column per tier and figure. */
const checkAges = `(SELECT a.account, a.resource,
  ${pivot.join(',\n  ')}
FROM (${checkAgeSql('authentications', '{{checked_epoch}}')}
UNION ALL ${checkAgeSql('fingerprints', '{{checked_epoch}}')}) a
GROUP BY a.account, a.resource) k`;

/** v_sync_health's SQL. */
function syncHealthSql(): string {
  const ages = CHECK_TIERS.flatMap((t) =>
    CHECK_FIGURES.map(([name]) => `{{now_epoch}} - k.${t}_${name}_epoch AS ${t}_check_age_${name}_seconds`),
  );
  const refreshColumns = `,
  COALESCE(t.hot_sessions, 0) AS hot_sessions,
  COALESCE(t.backoff_sessions, 0) AS backoff_sessions,
  COALESCE(t.unchecked_sessions, 0) AS unchecked_sessions,
  t.oldest_hot_check_at,
  t.oldest_backoff_check_at,
  ${ages.join(',\n  ')},
  (SELECT MAX(d.received_at) FROM webhook_deliveries d) AS last_delivery_at`;
  const refreshJoins =
    `\nLEFT JOIN (${tierSummary('authentications')}\nUNION ALL ${tierSummary('fingerprints')}) t ` +
    `ON t.account = w.account AND t.resource = w.resource` +
    `\nLEFT JOIN ${checkAges} ON k.account = w.account AND k.resource = w.resource`;
  return (
    `SELECT w.account, w.resource, w.api_version,
  w.high_water_mark,
  {{now_epoch}} - w.high_water_mark AS freshness_lag_seconds,
  CASE w.resource WHEN 'authentications' THEN ${finalShare('authentications')}
                  WHEN 'fingerprints' THEN ${finalShare('fingerprints')} END AS final_share,
  w.pending_windows,
  ${lastRun('id')} AS last_run_id,
  ${lastRun('status')} AS last_run_status,
  ${lastRun('finished_at')} AS last_run_finished_at,
  (SELECT COUNT(*) FROM rejected_items x WHERE x.resource = w.resource AND (x.account = w.account OR x.account IS ` +
    `NULL)) AS rejected_items,
  ${lease('account', 'holder')} AS lease_holder,
  ${lease('account', 'acquired_at')} AS lease_acquired_at,
  ${lease('account', 'heartbeat_at')} AS lease_heartbeat_at,
  ${lease('tick', 'heartbeat_at')} AS last_tick_at${refreshColumns}
FROM (
  SELECT account, resource, api_version, MAX(synced_to) AS high_water_mark,
    SUM(CASE WHEN status IN ('pending', 'running', 'failed') THEN 1 ELSE 0 END) AS pending_windows
  FROM sync_windows
  GROUP BY account, resource, api_version
) w${refreshJoins}`
  );
}

const SYNC_HEALTH_DESCRIPTION =
  'Per account, resource and interface: high-water mark (epoch seconds), freshness lag in seconds (now minus ' +
  'the high-water mark), share of final sessions among the stored non-missing ones, windows with work left ' +
  '(pending, running or failed), the last run of the account (id, status, finished_at), the rejected items of ' +
  'the account and resource, who holds the account lease now (lease_holder host:pid:run, lease_acquired_at, ' +
  'lease_heartbeat_at; null when nothing syncs it), when a daemon last claimed its scheduled sync ' +
  '(last_tick_at), the non-final sessions per refresh tier as of their last check (hot_sessions: re-checked ' +
  'every run; backoff_sessions: on a doubling back-off; unchecked_sessions: never re-checked yet) with the ' +
  'oldest check of the first two (oldest_hot_check_at, oldest_backoff_check_at), the age in seconds of the ' +
  'last check of the non-final sessions of each tier (hot_, backoff_ and unchecked_check_age_p50_seconds, ' +
  '_p95_seconds, _max_seconds: nearest-rank percentiles and the oldest; a session never re-checked counts from ' +
  'when it was last observed; null when the tier has none), and when the webhook receiver last accepted a ' +
  'delivery (last_delivery_at).';

/** Unix seconds (with the fraction) of a `timestamp` column: SQLite keeps it as ISO text, `...T03:06:17.123456Z`. */
const epochOf = (column: string): Record<Dialect, string> => ({
  sqlite: `(CAST(strftime('%s', ${column}) AS REAL) + CAST(substr(${column}, 20, 7) AS REAL))`,
  postgres: `EXTRACT(EPOCH FROM ${column})`,
  duckdb: `EXTRACT(EPOCH FROM ${column})`,
});

/** The first version with a final result of each session of `resource`, with what the session row says of it. */
const turnaroundOf = (resource: string, brand: string): string => `SELECT
  s.service_id, '${resource}' AS resource, s.account,
  ${brand}, s.form_factor, h.result_id,
  s.created_at, h.valid_from AS final_at,
  {{final_epoch}} - s.created_epoch AS turnaround_seconds,
  EXISTS (SELECT 1 FROM session_history p
          WHERE p.resource = h.resource AND p.service_id = h.service_id
            AND p.valid_from < h.valid_from) AS seen_non_final
FROM (SELECT service_id, MIN(valid_from) AS final_at FROM session_history
      WHERE resource = '${resource}' AND result_final GROUP BY service_id) f
JOIN session_history h ON h.resource = '${resource}' AND h.service_id = f.service_id AND h.valid_from = f.final_at
JOIN ${resource} s ON s.service_id = f.service_id`;

const HISTORY_COLUMNS =
  'service_id, resource, account, valid_from, valid_to, result_id, result_final, flag, missing_since, ' +
  'update_counter, source, api_version';

/** The version the row of each session of `resource` with no stored version tells (history-version.ts rowVersion). */
const rowVersions = (resource: string): string => `SELECT s.service_id, '${resource}', s.account,
  COALESCE(s.created_at, s.first_seen_at), NULL, s.result_id, s.result_final, s.flag, s.missing_since,
  s.update_counter, s.source, s.api_version
FROM ${resource} s
WHERE NOT EXISTS (SELECT 1 FROM session_versions v WHERE v.resource = '${resource}' AND v.service_id = s.service_id)`;

/**
 * session_history and the views that read it (migrations/20261126200000_session_history.ts created the last two,
 * 20261126500000_history_implicit_first.ts the first).
 */
export const HISTORY_VIEWS: readonly DialectViewDef[] = [
  {
    name: 'session_history',
    description:
      'One row per observed version of a session, with the columns of session_versions: the versions stored ' +
      'there, and for each session with none (one that never changed since ivsync first stored it) the one ' +
      'version its row tells: its result_id, result_final, flag, missing_since and update_counter, from its ' +
      "created_at (else first_seen_at), current (valid_to null), with the row's account, source and " +
      'api_version. A new version is stored only when one of those five values changes, in the same ' +
      'transaction as the row and under the same rule (an older update_counter never makes a version); the ' +
      "first change stores the version the row told, closed, before the new one. valid_from is the service's " +
      'change time (v2 `timestamp.last_updated_at`) where it gives one, else when ivsync observed the change.',
    sql: `SELECT ${HISTORY_COLUMNS} FROM session_versions
UNION ALL
${rowVersions('authentications')}
UNION ALL
${rowVersions('fingerprints')}`,
  },
  {
    name: 'v_result_turnaround',
    description:
      'Per session with a final result in session_history: when it was created, when its first final version ' +
      'began (final_at), the seconds between (turnaround_seconds), its result then, and brand (authentications; ' +
      'null for fingerprints) and form factor. seen_non_final is false when the first version ivsync stored was ' +
      'already final: then final_at is only the start of that version (created_at for a backfilled session, so ' +
      'the turnaround is 0), not a measured change.',
    sql: `${turnaroundOf('authentications', 's.brand_id, s.brand_display')}
UNION ALL
${turnaroundOf('fingerprints', 'NULL AS brand_id, NULL AS brand_display')}`,
    fragments: { final_epoch: epochOf('h.valid_from') },
  },
  {
    name: 'v_session_timeline',
    description:
      'The versions of every session in order (version 1 is the first ivsync stored), each with the values of ' +
      'the version before it (previous_result_id, previous_result_final, previous_flag; null for the first).',
    sql: `SELECT h.resource, h.service_id, h.account,
  ROW_NUMBER() OVER (PARTITION BY h.resource, h.service_id ORDER BY h.valid_from) AS version,
  h.valid_from, h.valid_to, h.result_id, h.result_final, h.flag, h.missing_since, h.update_counter,
  h.source, h.api_version,
  LAG(h.result_id) OVER (PARTITION BY h.resource, h.service_id ORDER BY h.valid_from) AS previous_result_id,
  LAG(h.result_final) OVER (PARTITION BY h.resource, h.service_id ORDER BY h.valid_from) AS previous_result_final,
  LAG(h.flag) OVER (PARTITION BY h.resource, h.service_id ORDER BY h.valid_from) AS previous_flag
FROM session_history h
ORDER BY h.service_id, h.resource, h.valid_from`,
  },
];

/**
 * The service_ids v_latest_authentications keeps, one per account and customer_item_id. The export runs it apart
 * from the view (view-pieces.ts `picks`): it reads only narrow columns.
 */
export const LATEST_AUTHENTICATION_KEYS = `SELECT service_id FROM (
  SELECT a.service_id, ROW_NUMBER() OVER (
    PARTITION BY a.account, a.customer_item_id
    ORDER BY CASE WHEN a.result_final THEN 0 ELSE 1 END,
             CASE WHEN a.created_epoch IS NULL THEN 1 ELSE 0 END,
             CASE WHEN a.result_final THEN a.created_epoch ELSE -a.created_epoch END,
             a.service_id
  ) AS lookup_rank
  FROM authentications a
  WHERE a.customer_item_id IS NOT NULL AND a.missing_since IS NULL
) ranked WHERE lookup_rank = 1`;

/** The analyst views, created in every target after the tables. */
export const VIEWS: readonly DialectViewDef[] = [
  {
    name: 'v_latest_authentications',
    description:
      "One authentication per account and customer_item_id, chosen as the service's lookup does: the first " +
      'final session (oldest by created_epoch), else the latest non-final one. Missing sessions are left out.',
    // Ranked by key alone, then the rows fetched: a window over every column (raw JSON included) held
    // the whole table in the window's state, which would not fit DuckDB's pool at a million sessions.
    sql:
      `SELECT ${LATEST_AUTHENTICATION_COLUMNS} FROM authentications ` +
      `WHERE service_id IN (${LATEST_AUTHENTICATION_KEYS})`,
  },
  {
    name: 'v_fingerprint_pairs',
    description:
      'Each compare fingerprint session with the registration it was compared against (left join on ' +
      'parent_service_id: the registration columns are null when it is not stored).',
    sql:
      `SELECT c.account,
  c.service_id AS compare_service_id, c.customer_item_id AS compare_customer_item_id,
  c.result_id AS compare_result_id, c.result_final AS compare_result_final, c.flag AS compare_flag,
  c.form_factor AS compare_form_factor, c.created_at AS compare_created_at, c.created_epoch AS compare_created_epoch,
  c.parent_service_id, c.parent_customer_item_id, c.parent_relationship_type, c.parent_accessible,
  r.service_id AS registration_service_id, r.customer_item_id AS registration_customer_item_id,
  r.result_id AS registration_result_id, r.result_final AS registration_result_final,
  r.form_factor AS registration_form_factor, r.created_at AS registration_created_at, r.created_epoch AS ` +
      `registration_created_epoch
FROM fingerprints c
LEFT JOIN fingerprints r ON r.service_id = c.parent_service_id
WHERE c.mode = 'compare'`,
  },
  {
    name: 'v_daily_results',
    description:
      'Authentications per UTC day of creation (`day`: a date in DuckDB and PostgreSQL, YYYY-MM-DD text in ' +
      'SQLite), result and brand: total and final counts.',
    sql: `SELECT {{utc_day}} AS day, result_id, brand_id,
  COUNT(*) AS total,
  SUM(CASE WHEN result_final THEN 1 ELSE 0 END) AS final
FROM authentications
GROUP BY {{utc_day}}, result_id, brand_id`,
    fragments: { utc_day: UTC_DAY },
  },
  {
    name: 'v_sync_health',
    description: SYNC_HEALTH_DESCRIPTION,
    sql: syncHealthSql(),
    fragments: { now_epoch: NOW_EPOCH, checked_epoch: CHECKED_EPOCH },
  },
  ...HISTORY_VIEWS,
];
