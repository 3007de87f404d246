import type { MigrationStep, StepView } from '../src/store/migration/migration-step.js';

/**
 * Every view again, as of this migration. Views changed in releases before the
 * migrations were frozen without a migration (v_latest_authentications ranks
 * by key, v_sync_health gained the lease columns), so a target showed the
 * views of the release that created or last retyped it; from here on every
 * target has the same.
 */
export const name = '20261126000000_views';

const NOW_EPOCH = {
  sqlite: "CAST(strftime('%s', 'now') AS REAL)",
  postgres: 'EXTRACT(EPOCH FROM CURRENT_TIMESTAMP)',
  duckdb: 'EXTRACT(EPOCH FROM CURRENT_TIMESTAMP)',
};

const UTC_DAY = {
  sqlite: 'substr(created_at, 1, 10)',
  postgres: "CAST(created_at AT TIME ZONE 'UTC' AS DATE)",
  duckdb: "CAST(created_at AT TIME ZONE 'UTC' AS DATE)",
};

const VIEWS: readonly StepView[] = [
  {
    name: 'v_latest_authentications',
    sql: `SELECT service_id, account, api_version, form_factor, product_category, product_group, brand_id,
  brand_display, material_id, material_display, result_id, result_display, result_final, initial_result_id, flag,
  retake_required, customer_item_id, identifier, style_code, us_size, organization_name, username,
  organization_id, user_id, certificate_id, certificate_preview, certificate_site, created_at, created_epoch,
  last_updated_at, update_counter, first_seen_at, last_synced_at, missing_since, source,
  raw FROM authentications WHERE service_id IN (SELECT service_id FROM (
  SELECT a.service_id, ROW_NUMBER() OVER (
    PARTITION BY a.account, a.customer_item_id
    ORDER BY CASE WHEN a.result_final THEN 0 ELSE 1 END,
             CASE WHEN a.created_epoch IS NULL THEN 1 ELSE 0 END,
             CASE WHEN a.result_final THEN a.created_epoch ELSE -a.created_epoch END,
             a.service_id
  ) AS lookup_rank
  FROM authentications a
  WHERE a.customer_item_id IS NOT NULL AND a.missing_since IS NULL
) ranked WHERE lookup_rank = 1)`,
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
  (SELECT l.heartbeat_at FROM sync_leases l WHERE l.name = 'tick:' || w.account) AS last_tick_at,
  CASE w.resource
    WHEN 'authentications'
    THEN (SELECT COUNT(*) FROM authentications s LEFT JOIN session_refresh r ON r.resource = 'authentications'
    AND r.service_id = s.service_id
   WHERE NOT s.result_final AND s.missing_since IS NULL AND s.account = w.account AND COALESCE(r.tier,
     'unchecked') = 'hot')
     WHEN 'fingerprints'
     THEN (SELECT COUNT(*) FROM fingerprints s LEFT JOIN session_refresh r ON r.resource = 'fingerprints'
     AND r.service_id = s.service_id
   WHERE NOT s.result_final AND s.missing_since IS NULL AND s.account = w.account AND COALESCE(r.tier,
     'unchecked') = 'hot') END AS hot_sessions,
  CASE w.resource
    WHEN 'authentications'
    THEN (SELECT COUNT(*) FROM authentications s LEFT JOIN session_refresh r ON r.resource = 'authentications'
    AND r.service_id = s.service_id
   WHERE NOT s.result_final AND s.missing_since IS NULL AND s.account = w.account AND COALESCE(r.tier,
     'unchecked') = 'backoff')
     WHEN 'fingerprints'
     THEN (SELECT COUNT(*) FROM fingerprints s LEFT JOIN session_refresh r ON r.resource = 'fingerprints'
     AND r.service_id = s.service_id
   WHERE NOT s.result_final AND s.missing_since IS NULL AND s.account = w.account AND COALESCE(r.tier,
     'unchecked') = 'backoff') END AS backoff_sessions,
  CASE w.resource
    WHEN 'authentications'
    THEN (SELECT COUNT(*) FROM authentications s LEFT JOIN session_refresh r ON r.resource = 'authentications'
    AND r.service_id = s.service_id
   WHERE NOT s.result_final AND s.missing_since IS NULL AND s.account = w.account AND COALESCE(r.tier,
     'unchecked') = 'unchecked')
     WHEN 'fingerprints'
     THEN (SELECT COUNT(*) FROM fingerprints s LEFT JOIN session_refresh r ON r.resource = 'fingerprints'
     AND r.service_id = s.service_id
   WHERE NOT s.result_final AND s.missing_since IS NULL AND s.account = w.account AND COALESCE(r.tier,
     'unchecked') = 'unchecked') END AS unchecked_sessions,
  CASE w.resource
    WHEN 'authentications'
    THEN (SELECT MIN(r.checked_at) FROM authentications s LEFT JOIN session_refresh r
    ON r.resource = 'authentications' AND r.service_id = s.service_id
   WHERE NOT s.result_final AND s.missing_since IS NULL AND s.account = w.account
     AND r.tier = 'hot')
     WHEN 'fingerprints'
     THEN (SELECT MIN(r.checked_at) FROM fingerprints s LEFT JOIN session_refresh r
     ON r.resource = 'fingerprints' AND r.service_id = s.service_id
   WHERE NOT s.result_final AND s.missing_since IS NULL AND s.account = w.account
     AND r.tier = 'hot') END AS oldest_hot_check_at,
  CASE w.resource
    WHEN 'authentications'
    THEN (SELECT MIN(r.checked_at) FROM authentications s LEFT JOIN session_refresh r
    ON r.resource = 'authentications' AND r.service_id = s.service_id
   WHERE NOT s.result_final AND s.missing_since IS NULL AND s.account = w.account
     AND r.tier = 'backoff')
     WHEN 'fingerprints'
     THEN (SELECT MIN(r.checked_at) FROM fingerprints s LEFT JOIN session_refresh r
     ON r.resource = 'fingerprints' AND r.service_id = s.service_id
   WHERE NOT s.result_final AND s.missing_since IS NULL AND s.account = w.account
     AND r.tier = 'backoff') END AS oldest_backoff_check_at,
  (SELECT MAX(d.received_at) FROM webhook_deliveries d) AS last_delivery_at
FROM (
  SELECT account, resource, api_version, MAX(synced_to) AS high_water_mark,
    SUM(CASE WHEN status IN ('pending', 'running', 'failed') THEN 1 ELSE 0 END) AS pending_windows
  FROM sync_windows
  GROUP BY account, resource, api_version
) w`,
    fragments: { now_epoch: NOW_EPOCH },
  },
];

export const steps: readonly MigrationStep[] = [
  { kind: 'dropViews', names: VIEWS.map((v) => v.name) },
  ...VIEWS.map((view): MigrationStep => ({ kind: 'createView', view })),
];
