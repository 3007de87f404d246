import { frozenTable } from '../src/store/migration/frozen-table.js';
import type { MigrationStep, StepView } from '../src/store/migration/migration-step.js';
import { TYPES } from './20261123000000_typed_time.js';

/**
 * session_refresh (the refresh policy's per-session state; `ifMissing`:
 * releases before the migrations were frozen created it in the first
 * migration), and v_sync_health again with its refresh tier and webhook columns.
 */
export const name = '20261123200000_session_refresh';

const sessionRefresh = frozenTable(
  'session_refresh',
  ['resource', 'service_id'],
  [
    'resource text!',
    'service_id text!',
    'account text!',
    'tier text!',
    'checked_at timestamp!',
    'interval_seconds integer!',
  ],
  [['account', 'resource']],
);

const NOW_EPOCH = {
  sqlite: "CAST(strftime('%s', 'now') AS REAL)",
  postgres: 'EXTRACT(EPOCH FROM CURRENT_TIMESTAMP)',
  duckdb: 'EXTRACT(EPOCH FROM CURRENT_TIMESTAMP)',
};

const syncHealth: StepView = {
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
};

export const steps: readonly MigrationStep[] = [
  { kind: 'createTable', table: sessionRefresh, types: TYPES, ifMissing: true },
  { kind: 'dropViews', names: ['v_sync_health'] },
  { kind: 'createView', view: syncHealth },
];
