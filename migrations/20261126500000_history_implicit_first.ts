import type { Dialect } from '../src/schema/dialect.js';
import type { MigrationStep, StepView } from '../src/store/migration/migration-step.js';
import { viewSql } from '../src/store/migration/view-sql.js';
import { resultTurnaround, sessionTimeline } from './20261126200000_session_history.js';

/**
 * session_history becomes a view over session_versions (the table renamed):
 * the stored versions, and for each session with none stored, the one version
 * its row tells (its values from created_at, else first_seen_at, current). A
 * session that never changed then costs no row: at a million sessions that
 * changed rarely, one version each was 7% of a SQLite file and 10% of a
 * PostgreSQL schema. The versions the row tells exactly are deleted (a lone
 * current version with the row's values, source and interface, from its
 * created_at); the views that read session_history are created again as they
 * were, over the view. Frozen as of this step.
 */
export const name = '20261126500000_history_implicit_first';

const everywhere = (sql: string): Record<Dialect, string> => ({ sqlite: sql, postgres: sql, duckdb: sql });
const onlyPostgres = (sql: string): Record<Dialect, string> => ({
  sqlite: 'SELECT 1',
  postgres: sql,
  duckdb: 'SELECT 1',
});

const COLUMNS =
  'service_id, resource, account, valid_from, valid_to, result_id, result_final, flag, missing_since, ' +
  'update_counter, source, api_version';

/** The version the row of each session of `resource` with no stored version tells. */
const rowVersions = (resource: string): string => `SELECT s.service_id, '${resource}', s.account,
  COALESCE(s.created_at, s.first_seen_at), NULL, s.result_id, s.result_final, s.flag, s.missing_since,
  s.update_counter, s.source, s.api_version
FROM ${resource} s
WHERE NOT EXISTS (SELECT 1 FROM session_versions v WHERE v.resource = '${resource}' AND v.service_id = s.service_id)`;

export const sessionHistory: StepView = {
  name: 'session_history',
  sql: `SELECT ${COLUMNS} FROM session_versions
UNION ALL
${rowVersions('authentications')}
UNION ALL
${rowVersions('fingerprints')}`,
};

/** Deletes the lone current versions of `resource` that its rows tell exactly. */
const toldByRow = (resource: string): string => `DELETE FROM session_versions
WHERE resource = '${resource}' AND valid_to IS NULL
  AND NOT EXISTS (SELECT 1 FROM session_versions o
                  WHERE o.resource = '${resource}' AND o.service_id = session_versions.service_id
                    AND o.valid_to IS NOT NULL)
  AND EXISTS (SELECT 1 FROM ${resource} s
              WHERE s.service_id = session_versions.service_id
                AND s.account = session_versions.account
                AND COALESCE(s.created_at, s.first_seen_at) = session_versions.valid_from
                AND s.source = session_versions.source
                AND s.api_version = session_versions.api_version
                AND s.result_id IS NOT DISTINCT FROM session_versions.result_id
                AND s.result_final IS NOT DISTINCT FROM session_versions.result_final
                AND s.flag IS NOT DISTINCT FROM session_versions.flag
                AND s.missing_since IS NOT DISTINCT FROM session_versions.missing_since
                AND s.update_counter IS NOT DISTINCT FROM session_versions.update_counter)`;

/** Writes the versions the rows tell back, so that the table alone holds every version again. */
const writeRowVersions = (resource: string): string =>
  `INSERT INTO session_versions (${COLUMNS}) ${rowVersions(resource)}`;

/** Nothing on the way up; reverted, `view` over the table session_history again, as the step before left it. */
const createdAgainOnRevert = (view: StepView): MigrationStep => ({
  kind: 'sql',
  up: everywhere('SELECT 1'),
  down: {
    sqlite: `CREATE VIEW ${view.name} AS ${viewSql(view, 'sqlite')}`,
    postgres: `CREATE VIEW ${view.name} AS ${viewSql(view, 'postgres')}`,
    duckdb: `CREATE VIEW ${view.name} AS ${viewSql(view, 'duckdb')}`,
  },
});

export const steps: readonly MigrationStep[] = [
  createdAgainOnRevert(resultTurnaround),
  createdAgainOnRevert(sessionTimeline),
  { kind: 'dropViews', names: ['v_result_turnaround', 'v_session_timeline'] },
  {
    kind: 'sql',
    up: everywhere('ALTER TABLE session_history RENAME TO session_versions'),
    down: everywhere('ALTER TABLE session_versions RENAME TO session_history'),
  },
  {
    kind: 'sql',
    up: onlyPostgres('ALTER TABLE session_versions RENAME CONSTRAINT session_history_pkey TO session_versions_pkey'),
    down: onlyPostgres('ALTER TABLE session_versions RENAME CONSTRAINT session_versions_pkey TO session_history_pkey'),
  },
  {
    kind: 'sql',
    up: everywhere(toldByRow('authentications')),
    down: everywhere(writeRowVersions('authentications')),
  },
  {
    kind: 'sql',
    up: everywhere(toldByRow('fingerprints')),
    down: everywhere(writeRowVersions('fingerprints')),
  },
  { kind: 'createView', view: sessionHistory },
  { kind: 'createView', view: resultTurnaround },
  { kind: 'createView', view: sessionTimeline },
];
