import { frozenTable } from '../src/store/migration/frozen-table.js';
import type { MigrationStep, StepView } from '../src/store/migration/migration-step.js';
import { TYPES } from './20261123000000_typed_time.js';

/**
 * What staleness reporting needs: each run's refresh budget and spending in
 * sync_runs, the change_lags table (the observed lag of every stored change
 * the service dated; keyless in DuckDB like the other tables that grow with
 * what the service does), and v_sync_health again with the age of the last
 * checks per tier. Frozen as of this step.
 */
export const name = '20261126100000_staleness';

const BIGINT = { sqlite: 'bigint', postgres: 'bigint', duckdb: 'BIGINT' } as const;

const changeLags = frozenTable(
  'change_lags',
  ['resource', 'service_id', 'changed_at'],
  [
    'resource text!',
    'service_id text!',
    'changed_at timestamp!',
    'account text!',
    'stored_at timestamp!',
    'lag_seconds real!',
    'source text!',
  ],
  [['account', 'resource', 'stored_at']],
);

const syncHealth: StepView = {
  name: 'v_sync_health',
  fragments: {
    now_epoch: {
      sqlite: "CAST(strftime('%s', 'now') AS REAL)",
      postgres: 'EXTRACT(EPOCH FROM CURRENT_TIMESTAMP)',
      duckdb: 'EXTRACT(EPOCH FROM CURRENT_TIMESTAMP)',
    },
    checked_epoch: {
      sqlite: "(CAST(strftime('%s', c.checked) AS REAL) + CAST(substr(c.checked, 20, 7) AS REAL))",
      postgres: 'EXTRACT(EPOCH FROM c.checked)',
      duckdb: 'EXTRACT(EPOCH FROM c.checked)',
    },
  },
  sql:
    `SELECT w.account, w.resource, w.api_version,
  w.high_water_mark,
  {{now_epoch}} - w.high_water_mark AS freshness_lag_seconds,
  CASE w.resource WHEN 'authentications' THEN (SELECT AVG(CASE WHEN s.result_final THEN 1.0 ELSE 0.0 END) FROM ` +
    `authentications s WHERE s.account = w.account AND s.missing_since IS NULL)
                  WHEN 'fingerprints' THEN (SELECT AVG(CASE WHEN s.result_final THEN 1.0 ELSE 0.0 END) FROM ` +
    `fingerprints s WHERE s.account = w.account AND s.missing_since IS NULL) END AS final_share,
  w.pending_windows,
  (SELECT r.id FROM sync_runs r WHERE r.account = w.account OR r.account IS NULL ORDER BY r.started_at DESC, r.id ` +
    `DESC LIMIT 1) AS last_run_id,
  (SELECT r.status FROM sync_runs r WHERE r.account = w.account OR r.account IS NULL ORDER BY r.started_at DESC, ` +
    `r.id DESC LIMIT 1) AS last_run_status,
  (SELECT r.finished_at FROM sync_runs r WHERE r.account = w.account OR r.account IS NULL ORDER BY r.started_at ` +
    `DESC, r.id DESC LIMIT 1) AS last_run_finished_at,
  (SELECT COUNT(*) FROM rejected_items x WHERE x.resource = w.resource AND (x.account = w.account OR x.account IS ` +
    `NULL)) AS rejected_items,
  (SELECT l.holder FROM sync_leases l WHERE l.name = 'account:' || w.account) AS lease_holder,
  (SELECT l.acquired_at FROM sync_leases l WHERE l.name = 'account:' || w.account) AS lease_acquired_at,
  (SELECT l.heartbeat_at FROM sync_leases l WHERE l.name = 'account:' || w.account) AS lease_heartbeat_at,
  (SELECT l.heartbeat_at FROM sync_leases l WHERE l.name = 'tick:' || w.account) AS last_tick_at,
  CASE w.resource WHEN 'authentications' THEN (SELECT COUNT(*) FROM authentications s LEFT JOIN session_refresh r ` +
    `ON r.resource = 'authentications' AND r.service_id = s.service_id
   WHERE NOT s.result_final AND s.missing_since IS NULL AND s.account = w.account AND COALESCE(r.tier, 'unchecked') ` +
    `= 'hot') WHEN 'fingerprints' THEN (SELECT COUNT(*) FROM fingerprints s LEFT JOIN session_refresh r ON ` +
    `r.resource = 'fingerprints' AND r.service_id = s.service_id
   WHERE NOT s.result_final AND s.missing_since IS NULL AND s.account = w.account AND COALESCE(r.tier, 'unchecked') ` +
    `= 'hot') END AS hot_sessions,
  CASE w.resource WHEN 'authentications' THEN (SELECT COUNT(*) FROM authentications s LEFT JOIN session_refresh r ` +
    `ON r.resource = 'authentications' AND r.service_id = s.service_id
   WHERE NOT s.result_final AND s.missing_since IS NULL AND s.account = w.account AND COALESCE(r.tier, 'unchecked') ` +
    `= 'backoff') WHEN 'fingerprints' THEN (SELECT COUNT(*) FROM fingerprints s LEFT JOIN session_refresh r ON ` +
    `r.resource = 'fingerprints' AND r.service_id = s.service_id
   WHERE NOT s.result_final AND s.missing_since IS NULL AND s.account = w.account AND COALESCE(r.tier, 'unchecked') ` +
    `= 'backoff') END AS backoff_sessions,
  CASE w.resource WHEN 'authentications' THEN (SELECT COUNT(*) FROM authentications s LEFT JOIN session_refresh r ` +
    `ON r.resource = 'authentications' AND r.service_id = s.service_id
   WHERE NOT s.result_final AND s.missing_since IS NULL AND s.account = w.account AND COALESCE(r.tier, 'unchecked') ` +
    `= 'unchecked') WHEN 'fingerprints' THEN (SELECT COUNT(*) FROM fingerprints s LEFT JOIN session_refresh r ON ` +
    `r.resource = 'fingerprints' AND r.service_id = s.service_id
   WHERE NOT s.result_final AND s.missing_since IS NULL AND s.account = w.account AND COALESCE(r.tier, 'unchecked') ` +
    `= 'unchecked') END AS unchecked_sessions,
  CASE w.resource WHEN 'authentications' THEN (SELECT MIN(r.checked_at) FROM authentications s LEFT JOIN ` +
    `session_refresh r ON r.resource = 'authentications' AND r.service_id = s.service_id
   WHERE NOT s.result_final AND s.missing_since IS NULL AND s.account = w.account AND r.tier = 'hot') WHEN ` +
    `'fingerprints' THEN (SELECT MIN(r.checked_at) FROM fingerprints s LEFT JOIN session_refresh r ON r.resource = ` +
    `'fingerprints' AND r.service_id = s.service_id
   WHERE NOT s.result_final AND s.missing_since IS NULL AND s.account = w.account AND r.tier = 'hot') END AS ` +
    `oldest_hot_check_at,
  CASE w.resource WHEN 'authentications' THEN (SELECT MIN(r.checked_at) FROM authentications s LEFT JOIN ` +
    `session_refresh r ON r.resource = 'authentications' AND r.service_id = s.service_id
   WHERE NOT s.result_final AND s.missing_since IS NULL AND s.account = w.account AND r.tier = 'backoff') WHEN ` +
    `'fingerprints' THEN (SELECT MIN(r.checked_at) FROM fingerprints s LEFT JOIN session_refresh r ON r.resource = ` +
    `'fingerprints' AND r.service_id = s.service_id
   WHERE NOT s.result_final AND s.missing_since IS NULL AND s.account = w.account AND r.tier = 'backoff') END AS ` +
    `oldest_backoff_check_at,
  {{now_epoch}} - k.hot_p50_epoch AS hot_check_age_p50_seconds,
  {{now_epoch}} - k.hot_p95_epoch AS hot_check_age_p95_seconds,
  {{now_epoch}} - k.hot_max_epoch AS hot_check_age_max_seconds,
  {{now_epoch}} - k.backoff_p50_epoch AS backoff_check_age_p50_seconds,
  {{now_epoch}} - k.backoff_p95_epoch AS backoff_check_age_p95_seconds,
  {{now_epoch}} - k.backoff_max_epoch AS backoff_check_age_max_seconds,
  {{now_epoch}} - k.unchecked_p50_epoch AS unchecked_check_age_p50_seconds,
  {{now_epoch}} - k.unchecked_p95_epoch AS unchecked_check_age_p95_seconds,
  {{now_epoch}} - k.unchecked_max_epoch AS unchecked_check_age_max_seconds,
  (SELECT MAX(d.received_at) FROM webhook_deliveries d) AS last_delivery_at
FROM (
  SELECT account, resource, api_version, MAX(synced_to) AS high_water_mark,
    SUM(CASE WHEN status IN ('pending', 'running', 'failed') THEN 1 ELSE 0 END) AS pending_windows
  FROM sync_windows
  GROUP BY account, resource, api_version
) w
LEFT JOIN (SELECT a.account, a.resource,
  MAX(CASE WHEN a.tier = 'hot' THEN a.p50_epoch END) AS hot_p50_epoch,
  MAX(CASE WHEN a.tier = 'hot' THEN a.p95_epoch END) AS hot_p95_epoch,
  MAX(CASE WHEN a.tier = 'hot' THEN a.oldest_epoch END) AS hot_max_epoch,
  MAX(CASE WHEN a.tier = 'backoff' THEN a.p50_epoch END) AS backoff_p50_epoch,
  MAX(CASE WHEN a.tier = 'backoff' THEN a.p95_epoch END) AS backoff_p95_epoch,
  MAX(CASE WHEN a.tier = 'backoff' THEN a.oldest_epoch END) AS backoff_max_epoch,
  MAX(CASE WHEN a.tier = 'unchecked' THEN a.p50_epoch END) AS unchecked_p50_epoch,
  MAX(CASE WHEN a.tier = 'unchecked' THEN a.p95_epoch END) AS unchecked_p95_epoch,
  MAX(CASE WHEN a.tier = 'unchecked' THEN a.oldest_epoch END) AS unchecked_max_epoch
FROM (SELECT q.account AS account, 'authentications' AS resource, q.tier AS tier, COUNT(*) AS sessions,
  MIN(q.checked_epoch) AS oldest_epoch, MAX(CASE WHEN q.age_rank * 100 >= 50 * q.tier_sessions THEN q.checked_epoch ` +
    `END) AS p50_epoch, MAX(CASE WHEN q.age_rank * 100 >= 95 * q.tier_sessions THEN q.checked_epoch END) AS p95_epoch
FROM (SELECT e.account, e.tier, e.checked_epoch,
      ROW_NUMBER() OVER (PARTITION BY e.account, e.tier ORDER BY e.checked_epoch DESC) AS age_rank,
      COUNT(*) OVER (PARTITION BY e.account, e.tier) AS tier_sessions
    FROM (SELECT c.account, c.tier, {{checked_epoch}} AS checked_epoch FROM (SELECT s.account AS account, ` +
    `COALESCE(r.tier, 'unchecked') AS tier,
      COALESCE(r.checked_at, s.last_synced_at, s.first_seen_at) AS checked
    FROM authentications s LEFT JOIN session_refresh r ON r.resource = 'authentications' AND r.service_id = s.service_id
    WHERE NOT s.result_final AND s.missing_since IS NULL) c) e) q
GROUP BY q.account, q.tier
UNION ALL SELECT q.account AS account, 'fingerprints' AS resource, q.tier AS tier, COUNT(*) AS sessions,
  MIN(q.checked_epoch) AS oldest_epoch, MAX(CASE WHEN q.age_rank * 100 >= 50 * q.tier_sessions THEN q.checked_epoch ` +
    `END) AS p50_epoch, MAX(CASE WHEN q.age_rank * 100 >= 95 * q.tier_sessions THEN q.checked_epoch END) AS p95_epoch
FROM (SELECT e.account, e.tier, e.checked_epoch,
      ROW_NUMBER() OVER (PARTITION BY e.account, e.tier ORDER BY e.checked_epoch DESC) AS age_rank,
      COUNT(*) OVER (PARTITION BY e.account, e.tier) AS tier_sessions
    FROM (SELECT c.account, c.tier, {{checked_epoch}} AS checked_epoch FROM (SELECT s.account AS account, ` +
    `COALESCE(r.tier, 'unchecked') AS tier,
      COALESCE(r.checked_at, s.last_synced_at, s.first_seen_at) AS checked
    FROM fingerprints s LEFT JOIN session_refresh r ON r.resource = 'fingerprints' AND r.service_id = s.service_id
    WHERE NOT s.result_final AND s.missing_since IS NULL) c) e) q
GROUP BY q.account, q.tier) a
GROUP BY a.account, a.resource) k ON k.account = w.account AND k.resource = w.resource`,
};

export const steps: readonly MigrationStep[] = [
  { kind: 'addColumn', table: 'sync_runs', column: 'refresh_budget', type: BIGINT },
  { kind: 'addColumn', table: 'sync_runs', column: 'refresh_spent', type: BIGINT },
  { kind: 'createTable', table: changeLags, types: TYPES, ifMissing: true, duckdbKey: false },
  { kind: 'dropViews', names: ['v_sync_health'] },
  { kind: 'createView', view: syncHealth },
];
