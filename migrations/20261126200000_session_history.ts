import { frozenTable } from '../src/store/migration/frozen-table.js';
import type { Dialect } from '../src/schema/dialect.js';
import type { MigrationStep, StepView } from '../src/store/migration/migration-step.js';
import { TYPES } from './20261123000000_typed_time.js';

/**
 * History mode: session_history (keyless in DuckDB, like the session tables),
 * one version per stored session to start from (its current values,
 * valid_from = first_seen_at), and the views v_result_turnaround and
 * v_session_timeline. Frozen as of this step.
 */
export const name = '20261126200000_session_history';

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

const COLUMNS =
  'service_id, resource, account, valid_from, valid_to, result_id, result_final, flag, missing_since, ' +
  'update_counter, source, api_version';

/** The first version of each stored session of `resource` that has none; the same SQL in every dialect. */
const firstVersions = (resource: string): string =>
  `INSERT INTO session_history (${COLUMNS})
SELECT s.service_id, '${resource}', s.account, s.first_seen_at, NULL, s.result_id, s.result_final, s.flag,
  s.missing_since, s.update_counter, s.source, s.api_version
FROM ${resource} s
WHERE NOT EXISTS (SELECT 1 FROM session_history h WHERE h.resource = '${resource}' AND h.service_id = s.service_id)`;

const everywhere = (sql: string): Record<Dialect, string> => ({ sqlite: sql, postgres: sql, duckdb: sql });

// Reverting needs no statement here: dropping the table (the first step, reverted last) takes the rows.
const NOTHING = everywhere('SELECT 1');

export const resultTurnaround: StepView = {
  name: 'v_result_turnaround',
  fragments: {
    final_epoch: {
      sqlite: "(CAST(strftime('%s', h.valid_from) AS REAL) + CAST(substr(h.valid_from, 20, 7) AS REAL))",
      postgres: 'EXTRACT(EPOCH FROM h.valid_from)',
      duckdb: 'EXTRACT(EPOCH FROM h.valid_from)',
    },
  },
  sql: `SELECT
  s.service_id, 'authentications' AS resource, s.account,
  s.brand_id, s.brand_display, s.form_factor, h.result_id,
  s.created_at, h.valid_from AS final_at,
  {{final_epoch}} - s.created_epoch AS turnaround_seconds,
  EXISTS (SELECT 1 FROM session_history p
          WHERE p.resource = h.resource AND p.service_id = h.service_id
            AND p.valid_from < h.valid_from) AS seen_non_final
FROM (SELECT service_id, MIN(valid_from) AS final_at FROM session_history
      WHERE resource = 'authentications' AND result_final GROUP BY service_id) f
JOIN session_history h ON h.resource = 'authentications' AND h.service_id = f.service_id AND h.valid_from = f.final_at
JOIN authentications s ON s.service_id = f.service_id
UNION ALL
SELECT
  s.service_id, 'fingerprints' AS resource, s.account,
  NULL AS brand_id, NULL AS brand_display, s.form_factor, h.result_id,
  s.created_at, h.valid_from AS final_at,
  {{final_epoch}} - s.created_epoch AS turnaround_seconds,
  EXISTS (SELECT 1 FROM session_history p
          WHERE p.resource = h.resource AND p.service_id = h.service_id
            AND p.valid_from < h.valid_from) AS seen_non_final
FROM (SELECT service_id, MIN(valid_from) AS final_at FROM session_history
      WHERE resource = 'fingerprints' AND result_final GROUP BY service_id) f
JOIN session_history h ON h.resource = 'fingerprints' AND h.service_id = f.service_id AND h.valid_from = f.final_at
JOIN fingerprints s ON s.service_id = f.service_id`,
};

export const sessionTimeline: StepView = {
  name: 'v_session_timeline',
  sql: `SELECT h.resource, h.service_id, h.account,
  ROW_NUMBER() OVER (PARTITION BY h.resource, h.service_id ORDER BY h.valid_from) AS version,
  h.valid_from, h.valid_to, h.result_id, h.result_final, h.flag, h.missing_since, h.update_counter,
  h.source, h.api_version,
  LAG(h.result_id) OVER (PARTITION BY h.resource, h.service_id ORDER BY h.valid_from) AS previous_result_id,
  LAG(h.result_final) OVER (PARTITION BY h.resource, h.service_id ORDER BY h.valid_from) AS previous_result_final,
  LAG(h.flag) OVER (PARTITION BY h.resource, h.service_id ORDER BY h.valid_from) AS previous_flag
FROM session_history h
ORDER BY h.service_id, h.resource, h.valid_from`,
};

export const steps: readonly MigrationStep[] = [
  { kind: 'createTable', table: sessionHistory, types: TYPES, ifMissing: true, duckdbKey: false },
  { kind: 'sql', up: everywhere(firstVersions('authentications')), down: NOTHING },
  { kind: 'sql', up: everywhere(firstVersions('fingerprints')), down: NOTHING },
  { kind: 'dropViews', names: ['v_result_turnaround', 'v_session_timeline'] },
  { kind: 'createView', view: resultTurnaround },
  { kind: 'createView', view: sessionTimeline },
];
