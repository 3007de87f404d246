import type { ColumnRetype, MigrationStep, StepTypes, StepView } from '../src/store/migration/migration-step.js';
import * as initial from './20251122000000_initial.js';

/**
 * Typed times for analysts: every time column of the first release's tables
 * becomes a timestamp with time zone in DuckDB and PostgreSQL, its ISO 8601
 * text cast, microseconds kept; SQLite keeps the text. And JSON in PostgreSQL
 * becomes `json` instead of `jsonb`, which keeps the text as the service sent
 * it (jsonb had reordered keys and dropped duplicates already; those are not
 * brought back). A target whose first migration created these types already
 * (releases before the migrations were frozen did) is left alone.
 */
export const name = '20261123000000_typed_time';

/** The SQL types of the tables created from this migration on. */
export const TYPES: StepTypes = {
  ...initial.TYPES,
  json: { sqlite: 'text', postgres: 'json', duckdb: 'JSON' },
  timestamp: { sqlite: 'text', postgres: 'timestamptz', duckdb: 'TIMESTAMPTZ' },
};

const columns: ColumnRetype[] = initial.TABLES.flatMap((table) =>
  table.columns.flatMap((column): ColumnRetype[] => {
    if (column.type !== 'timestamp' && column.type !== 'json') return [];
    return [{ table: table.name, column: column.name, from: initial.TYPES[column.type], to: TYPES[column.type] }];
  }),
);

const NOW_EPOCH = initial.VIEWS.find((v) => v.name === 'v_sync_health')!.fragments!.now_epoch!;

/** v_daily_results reads the UTC date of a typed created_at, whatever the session's time zone. */
const UTC_DAY = {
  sqlite: 'substr(created_at, 1, 10)',
  postgres: "CAST(created_at AT TIME ZONE 'UTC' AS DATE)",
  duckdb: "CAST(created_at AT TIME ZONE 'UTC' AS DATE)",
};

/** The views as they were then, created again around the retyped columns. */
const VIEWS: readonly StepView[] = [
  {
    name: 'v_latest_authentications',
    sql: `SELECT service_id, account, api_version, form_factor, product_category, product_group, brand_id,
  brand_display, material_id, material_display, result_id, result_display, result_final, initial_result_id, flag,
  retake_required, customer_item_id, identifier, style_code, us_size, organization_name, username,
  organization_id, user_id, certificate_id, certificate_preview, certificate_site, created_at, created_epoch,
  last_updated_at, update_counter, first_seen_at, last_synced_at, missing_since, source, raw FROM (
  SELECT a.*, ROW_NUMBER() OVER (
    PARTITION BY a.account, a.customer_item_id
    ORDER BY CASE WHEN a.result_final THEN 0 ELSE 1 END,
             CASE WHEN a.created_epoch IS NULL THEN 1 ELSE 0 END,
             CASE WHEN a.result_final THEN a.created_epoch ELSE -a.created_epoch END,
             a.service_id
  ) AS lookup_rank
  FROM authentications a
  WHERE a.customer_item_id IS NOT NULL AND a.missing_since IS NULL
) ranked WHERE lookup_rank = 1`,
  },
  {
    name: 'v_fingerprint_pairs',
    sql: `SELECT c.account,
  c.service_id AS compare_service_id, c.customer_item_id AS compare_customer_item_id,
  c.result_id AS compare_result_id, c.result_final AS compare_result_final, c.flag AS compare_flag,
  c.form_factor AS compare_form_factor, c.created_at AS compare_created_at,
    c.created_epoch AS compare_created_epoch,
  c.parent_service_id, c.parent_customer_item_id, c.parent_relationship_type, c.parent_accessible,
  r.service_id AS registration_service_id, r.customer_item_id AS registration_customer_item_id,
  r.result_id AS registration_result_id, r.result_final AS registration_result_final,
  r.form_factor AS registration_form_factor, r.created_at AS registration_created_at,
    r.created_epoch AS registration_created_epoch
FROM fingerprints c
LEFT JOIN fingerprints r ON r.service_id = c.parent_service_id
WHERE c.mode = 'compare'`,
  },
  {
    name: 'v_daily_results',
    sql: `SELECT {{utc_day}} AS day, result_id, brand_id,
  COUNT(*) AS total,
  SUM(CASE WHEN result_final THEN 1 ELSE 0 END) AS final
FROM authentications
GROUP BY {{utc_day}}, result_id, brand_id`,
    fragments: { utc_day: UTC_DAY },
  },
  {
    name: 'v_sync_health',
    sql: `SELECT w.account, w.resource, w.api_version,
  w.high_water_mark,
  {{now_epoch}} - w.high_water_mark AS freshness_lag_seconds,
  CASE w.resource WHEN 'authentications' THEN (SELECT AVG(CASE
    WHEN s.result_final THEN 1.0 ELSE 0.0 END) FROM authentications s WHERE s.account = w.account
    AND s.missing_since IS NULL)
                  WHEN 'fingerprints' THEN (SELECT AVG(CASE
                    WHEN s.result_final THEN 1.0 ELSE 0.0 END) FROM fingerprints s WHERE s.account = w.account
                    AND s.missing_since IS NULL) END AS final_share,
  w.pending_windows,
  (SELECT r.id FROM sync_runs r WHERE r.account = w.account OR r.account IS NULL ORDER BY r.started_at DESC,
    r.id DESC LIMIT 1) AS last_run_id,
  (SELECT r.status FROM sync_runs r WHERE r.account = w.account OR r.account IS NULL ORDER BY r.started_at DESC,
    r.id DESC LIMIT 1) AS last_run_status,
  (SELECT r.finished_at FROM sync_runs r
    WHERE r.account = w.account OR r.account IS NULL ORDER BY r.started_at DESC,
    r.id DESC LIMIT 1) AS last_run_finished_at,
  (SELECT COUNT(*) FROM rejected_items x WHERE x.resource = w.resource
    AND (x.account = w.account OR x.account IS NULL)) AS rejected_items,
  (SELECT l.holder FROM sync_leases l WHERE l.name = 'account:' || w.account) AS lease_holder,
  (SELECT l.acquired_at FROM sync_leases l WHERE l.name = 'account:' || w.account) AS lease_acquired_at,
  (SELECT l.heartbeat_at FROM sync_leases l WHERE l.name = 'account:' || w.account) AS lease_heartbeat_at,
  (SELECT l.heartbeat_at FROM sync_leases l WHERE l.name = 'tick:' || w.account) AS last_tick_at
FROM (
  SELECT account, resource, api_version, MAX(synced_to) AS high_water_mark,
    SUM(CASE WHEN status IN ('pending', 'running', 'failed') THEN 1 ELSE 0 END) AS pending_windows
  FROM sync_windows
  GROUP BY account, resource, api_version
) w`,
    fragments: { now_epoch: NOW_EPOCH },
  },
];

export const steps: readonly MigrationStep[] = [{ kind: 'retypeColumns', columns, views: VIEWS }];
