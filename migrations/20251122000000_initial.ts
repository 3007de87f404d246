import { frozenTable } from '../src/store/migration/frozen-table.js';
import type { MigrationStep, StepTable, StepTypes, StepView } from '../src/store/migration/migration-step.js';

/**
 * The schema of the first release (22 Nov 2025 in migration time): every
 * table and view as it created them, times as ISO 8601 text, JSON as jsonb in
 * PostgreSQL, every DuckDB table with its primary key. Later migrations change
 * it; none of this is ever edited (migrations/README.md).
 */
export const name = '20251122000000_initial';

/** The SQL types of this migration's tables. */
export const TYPES: StepTypes = {
  text: { sqlite: 'text', postgres: 'text', duckdb: 'VARCHAR' },
  real: { sqlite: 'float', postgres: 'double precision', duckdb: 'DOUBLE' },
  integer: { sqlite: 'bigint', postgres: 'bigint', duckdb: 'BIGINT' },
  boolean: { sqlite: 'boolean', postgres: 'boolean', duckdb: 'BOOLEAN' },
  json: { sqlite: 'text', postgres: 'jsonb', duckdb: 'JSON' },
  timestamp: { sqlite: 'text', postgres: 'text', duckdb: 'VARCHAR' },
};

export const TABLES: readonly StepTable[] = [
  frozenTable(
    'authentications',
    ['service_id'],
    [
      'service_id text!',
      'account text!',
      'api_version text!',
      'form_factor text',
      'product_category text',
      'product_group text',
      'brand_id text',
      'brand_display text',
      'material_id text',
      'material_display text',
      'result_id text',
      'result_display text',
      'result_final boolean',
      'initial_result_id text',
      'flag text',
      'retake_required boolean',
      'customer_item_id text',
      'identifier text',
      'style_code text',
      'us_size text',
      'organization_name text',
      'username text',
      'organization_id text',
      'user_id text',
      'certificate_id text',
      'certificate_preview text',
      'certificate_site text',
      'created_at timestamp',
      'created_epoch real',
      'last_updated_at timestamp',
      'update_counter integer',
      'first_seen_at timestamp!',
      'last_synced_at timestamp!',
      'missing_since timestamp',
      'source text!',
      'raw json!',
    ],
    [['account', 'created_epoch'], ['customer_item_id'], ['result_final']],
  ),
  frozenTable(
    'fingerprints',
    ['service_id'],
    [
      'service_id text!',
      'account text!',
      'api_version text!',
      'mode text',
      'form_factor text',
      'result_id text',
      'result_display text',
      'result_final boolean',
      'flag text',
      'customer_item_id text',
      'parent_service_id text',
      'parent_customer_item_id text',
      'parent_relationship_type text',
      'parent_accessible boolean',
      'organization_name text',
      'username text',
      'organization_id text',
      'user_id text',
      'created_at timestamp',
      'created_epoch real',
      'last_updated_at timestamp',
      'update_counter integer',
      'first_seen_at timestamp!',
      'last_synced_at timestamp!',
      'missing_since timestamp',
      'source text!',
      'raw json!',
    ],
    [['account', 'created_epoch'], ['parent_service_id'], ['result_final']],
  ),
  frozenTable('session_text_fields', ['service_id', 'key'], ['service_id text!', 'key text!', 'value text']),
  frozenTable(
    'session_images',
    ['service_id', 'name'],
    ['service_id text!', 'name text!', 'url text', 'metadata json'],
  ),
  frozenTable(
    'session_warnings',
    ['service_id', 'code'],
    ['service_id text!', 'code text!', 'message text', 'seen_at timestamp!'],
  ),
  frozenTable(
    'sync_windows',
    ['account', 'resource', 'api_version', 'window_start'],
    [
      'account text!',
      'resource text!',
      'api_version text!',
      'window_start integer!',
      'window_end integer!',
      'status text!',
      'cursor text',
      'pages integer!',
      'items integer!',
      'attempts integer!',
      'error text',
      'updated_at timestamp!',
      'pass_from integer',
      'pass_to integer',
      'pass_started_at timestamp',
      'synced_to integer',
    ],
  ),
  frozenTable(
    'sync_runs',
    ['id'],
    [
      'id text!',
      'command text!',
      'started_at timestamp!',
      'finished_at timestamp',
      'status text!',
      'requests integer!',
      'items_written integer!',
      'error text',
      'account text',
    ],
  ),
  frozenTable(
    'webhook_deliveries',
    ['id'],
    [
      'id text!',
      'webhook_uuid text',
      'channel text',
      'received_at timestamp!',
      'signature_ok boolean!',
      'items integer!',
      'applied integer!',
      'body json!',
    ],
  ),
  frozenTable(
    'webhooks',
    ['webhook_uuid'],
    [
      'webhook_uuid text!',
      'account text!',
      'channel text',
      'endpoint_url text',
      'filters json',
      'created_at timestamp',
      'created_epoch real',
      'organization_name text',
      'username text',
      'active boolean!',
      'last_synced_at timestamp!',
      'raw json!',
    ],
  ),
  frozenTable(
    'domains',
    ['domain_uuid'],
    [
      'domain_uuid text!',
      'account text!',
      'domain_name text',
      'organization_name text',
      'username text',
      'created_at timestamp',
      'created_epoch real',
      'last_synced_at timestamp!',
      'raw json!',
    ],
  ),
  frozenTable(
    'sync_leases',
    ['name'],
    ['name text!', 'holder text!', 'acquired_at timestamp!', 'heartbeat_at timestamp!'],
  ),
  frozenTable(
    'rejected_items',
    ['id'],
    [
      'id text!',
      'resource text!',
      'service_id text',
      'reason text!',
      'raw json!',
      'seen_at timestamp!',
      'account text',
    ],
    [['resource', 'service_id']],
  ),
  frozenTable(
    'catalog_brands',
    ['account', 'brand_id'],
    ['account text!', 'brand_id text!', 'name text', 'raw json!', 'last_synced_at timestamp!'],
  ),
  frozenTable(
    'catalog_materials',
    ['account', 'brand_id', 'material_id'],
    ['account text!', 'brand_id text!', 'material_id text!', 'name text'],
  ),
  frozenTable(
    'catalog_detail_fields',
    ['account', 'brand_id', 'field_alias'],
    ['account text!', 'brand_id text!', 'field_alias text!', 'name text'],
  ),
  frozenTable(
    'catalog_categories',
    ['account', 'product_category', 'customer_product_group'],
    [
      'account text!',
      'product_category text!',
      'customer_product_group text!',
      'display_product_category text',
      'display_customer_product_group text',
      'brands json',
    ],
  ),
];

const NOW_EPOCH = {
  sqlite: "CAST(strftime('%s', 'now') AS REAL)",
  postgres: 'EXTRACT(EPOCH FROM CURRENT_TIMESTAMP)',
  duckdb: 'EXTRACT(EPOCH FROM CURRENT_TIMESTAMP)',
};

export const VIEWS: readonly StepView[] = [
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
    sql: `SELECT substr(created_at, 1, 10) AS day, result_id, brand_id,
  COUNT(*) AS total,
  SUM(CASE WHEN result_final THEN 1 ELSE 0 END) AS final
FROM authentications
GROUP BY substr(created_at, 1, 10), result_id, brand_id`,
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
    AND (x.account = w.account OR x.account IS NULL)) AS rejected_items
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
  ...TABLES.map((table): MigrationStep => ({ kind: 'createTable', table, types: TYPES })),
  ...VIEWS.map((view): MigrationStep => ({ kind: 'createView', view })),
];
