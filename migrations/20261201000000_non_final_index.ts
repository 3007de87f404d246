import type { Dialect } from '../src/schema/dialect.js';
import type { MigrationStep } from '../src/store/migration/migration-step.js';

/**
 * Each session table's index of `result_final` becomes a partial index of
 * its non-final sessions that are not missing, holding the columns the sync,
 * the refresh policy and the check ages read of them: those queries read the
 * index alone, in order, where the `result_final` index led them to a table
 * page per session. No query looked up final sessions by that index (they are
 * most of a history). And a partial index of the missing sessions, a few
 * rows: `status` counts them there, where the count read every session, and
 * the sessions a range holds are its created times less these. DuckDB has
 * no secondary indexes (its zone maps serve these scans): nothing happens
 * there. Frozen as of this step.
 */
export const name = '20261201000000_non_final_index';

const COLUMNS =
  'account, created_epoch, service_id, last_synced_at, first_seen_at, source, result_final, missing_since';

const sqliteAndPostgres = (sql: string): Record<Dialect, string> => ({
  sqlite: sql,
  postgres: sql,
  duckdb: 'SELECT 1',
});

const replaceIndex = (table: string): MigrationStep[] => [
  {
    kind: 'sql',
    up: sqliteAndPostgres(
      `CREATE INDEX IF NOT EXISTS ${table}_non_final_idx ON ${table} (${COLUMNS}) ` +
        'WHERE result_final = FALSE AND missing_since IS NULL',
    ),
    down: sqliteAndPostgres(`DROP INDEX IF EXISTS ${table}_non_final_idx`),
  },
  {
    kind: 'sql',
    up: sqliteAndPostgres(
      `CREATE INDEX IF NOT EXISTS ${table}_missing_idx ON ${table} (account, created_epoch, missing_since) ` +
        'WHERE missing_since IS NOT NULL',
    ),
    down: sqliteAndPostgres(`DROP INDEX IF EXISTS ${table}_missing_idx`),
  },
  {
    kind: 'sql',
    up: sqliteAndPostgres(`DROP INDEX IF EXISTS ${table}_result_final_idx`),
    down: sqliteAndPostgres(`CREATE INDEX IF NOT EXISTS ${table}_result_final_idx ON ${table} (result_final)`),
  },
];

export const steps: readonly MigrationStep[] = [...replaceIndex('authentications'), ...replaceIndex('fingerprints')];
