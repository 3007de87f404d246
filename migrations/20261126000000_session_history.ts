import type { Knex } from 'knex';
import type { Dialect } from '../src/store/dialect.js';
import { applyStepsWithKnex, revertStepsWithKnex } from '../src/store/knex-ddl.js';
import type { MigrationStep } from '../src/store/migration-step.js';
import type { TableDef } from '../src/store/schema.js';
import type { DialectViewDef } from '../src/store/views.js';

/**
 * History mode: session_history, one version per stored session to start
 * from (its current values, valid_from = first_seen_at), and the views
 * v_result_turnaround and v_session_timeline. The table and the views are
 * written out here as this step created them, not read from today's schema.
 * On a target whose initial migration created the table already, the table
 * step does nothing and no session lacks its version; the views are created
 * again as here.
 */
export const name = '20261126000000_session_history';

const column = (name: string, type: 'text' | 'integer' | 'boolean' | 'timestamp', nullable = true) => ({
  name,
  type,
  nullable,
  description: '',
});

const SESSION_HISTORY: TableDef = {
  name: 'session_history',
  description: 'One row per observed version of a session.',
  primaryKey: ['service_id', 'resource', 'valid_from'],
  columns: [
    column('service_id', 'text', false),
    column('resource', 'text', false),
    column('account', 'text', false),
    column('valid_from', 'timestamp', false),
    column('valid_to', 'timestamp'),
    column('result_id', 'text'),
    column('result_final', 'boolean'),
    column('flag', 'text'),
    column('missing_since', 'timestamp'),
    column('update_counter', 'integer'),
    column('source', 'text', false),
    column('api_version', 'text', false),
  ],
};

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

const DROP_VIEWS = ['v_result_turnaround', 'v_session_timeline'].map(
  (view): MigrationStep => ({ kind: 'sql', up: everywhere(`DROP VIEW IF EXISTS ${view}`), down: NOTHING }),
);

const turnaroundOf = (
  resource: string,
  brand: string,
): string => `SELECT s.service_id, '${resource}' AS resource, s.account,
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

const RESULT_TURNAROUND: DialectViewDef = {
  name: 'v_result_turnaround',
  description: 'Per session: created to first final result.',
  sql: `${turnaroundOf('authentications', 's.brand_id, s.brand_display')}
UNION ALL
${turnaroundOf('fingerprints', 'NULL AS brand_id, NULL AS brand_display')}`,
  fragments: {
    final_epoch: {
      sqlite: "(CAST(strftime('%s', h.valid_from) AS REAL) + CAST(substr(h.valid_from, 20, 7) AS REAL))",
      postgres: 'EXTRACT(EPOCH FROM h.valid_from)',
      duckdb: 'EXTRACT(EPOCH FROM h.valid_from)',
    },
  },
};

const SESSION_TIMELINE: DialectViewDef = {
  name: 'v_session_timeline',
  description: 'The versions of every session in order.',
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
  { kind: 'createTable', table: SESSION_HISTORY, ifMissing: true },
  { kind: 'sql', up: everywhere(firstVersions('authentications')), down: NOTHING },
  { kind: 'sql', up: everywhere(firstVersions('fingerprints')), down: NOTHING },
  ...DROP_VIEWS,
  { kind: 'createView', view: RESULT_TURNAROUND },
  { kind: 'createView', view: SESSION_TIMELINE },
];

export function up(knex: Knex): Promise<void> {
  return applyStepsWithKnex(knex, steps);
}

export function down(knex: Knex): Promise<void> {
  return revertStepsWithKnex(knex, steps);
}
