import type { Dialect } from '../src/schema/dialect.js';
import type { MigrationStep } from '../src/store/migration/migration-step.js';

/**
 * A session's child rows (text fields, images, warnings, keyed by service_id
 * alone) go when the last session row of their id goes: triggers on both
 * session tables delete the children of an id that neither table holds any
 * more after a DELETE, a change of service_id, or (PostgreSQL) a TRUNCATE.
 * ivsync never deletes a session row; a hand does. Then a session that is
 * new to its table has child rows only where the other session table holds
 * its id, which a commit reads with the stored rows it reads anyway, where it
 * looked up every new id in the three child tables (a statement of every
 * commit, 12% of a Postgres backfill's statement time at 1M sessions, finding
 * nothing in an ordinary run). Child rows such a hand left before this
 * migration are deleted by it. DuckDB has no triggers: nothing happens there,
 * and its commits keep looking.
 *
 * PostgreSQL runs one function, in the target's schema, which qualifies the
 * tables with the schema of the table that fired (whatever search_path the
 * hand's session has). It gathers the ids neither table holds into an array
 * and deletes each child table's rows of it by its index: a DELETE's ids
 * come as its transition table, one statement for however many rows; a
 * change of id, a row at a time (a trigger with a column list has no
 * transition tables), and only when the id changed; a TRUNCATE leaves
 * nothing to name, and the children of every id neither table holds go.
 * Frozen as of this step.
 */
export const name = '20261202000000_children_follow_sessions';

const CHILDREN = ['session_text_fields', 'session_images', 'session_warnings'];
const SESSIONS = ['authentications', 'fingerprints'];

const only = (dialect: 'sqlite' | 'postgres', sql: string): Record<Dialect, string> => ({
  sqlite: dialect === 'sqlite' ? sql : 'SELECT 1',
  postgres: dialect === 'postgres' ? sql : 'SELECT 1',
  duckdb: 'SELECT 1',
});

const both = (sql: string): Record<Dialect, string> => ({ sqlite: sql, postgres: sql, duckdb: 'SELECT 1' });

/** `c`'s id is held by no session table. */
const unheld = (schema: string): string =>
  SESSIONS.map((s) => `NOT EXISTS (SELECT 1 FROM ${schema}${s} s WHERE s.service_id = c.service_id)`).join(' AND ');

/** The children left behind before this step: rows whose id no session table holds. */
const removeOrphans: MigrationStep[] = CHILDREN.map((child) => ({
  kind: 'sql',
  up: both(`DELETE FROM ${child} AS c WHERE ${unheld('')}`),
  down: both('SELECT 1'),
}));

const sqliteTriggers = (table: string): MigrationStep[] => {
  const other = SESSIONS.find((s) => s !== table)!;
  const body = CHILDREN.map((child) => `DELETE FROM ${child} WHERE service_id = OLD.service_id;`).join(' ');
  const unheldOld = `NOT EXISTS (SELECT 1 FROM ${other} WHERE service_id = OLD.service_id)`;
  return [
    {
      kind: 'sql',
      up: only(
        'sqlite',
        `CREATE TRIGGER IF NOT EXISTS ${table}_children_follow AFTER DELETE ON ${table} ` +
          `WHEN ${unheldOld} BEGIN ${body} END`,
      ),
      down: only('sqlite', `DROP TRIGGER IF EXISTS ${table}_children_follow`),
    },
    {
      kind: 'sql',
      up: only(
        'sqlite',
        `CREATE TRIGGER IF NOT EXISTS ${table}_children_follow_id AFTER UPDATE OF service_id ON ${table} ` +
          `WHEN OLD.service_id IS NOT NEW.service_id AND ${unheldOld} BEGIN ${body} END`,
      ),
      down: only('sqlite', `DROP TRIGGER IF EXISTS ${table}_children_follow_id`),
    },
  ];
};

/** `g`'s id is held by neither session table; `%1$I` is the schema of the table that fired. */
const UNHELD = SESSIONS.map((s) => `NOT EXISTS (SELECT 1 FROM %1$I.${s} AS s WHERE s.service_id = g.service_id)`).join(
  ' AND ',
);

const POSTGRES_FUNCTION = `CREATE OR REPLACE FUNCTION ivsync_children_follow()
RETURNS trigger LANGUAGE plpgsql AS $body$
DECLARE
  child text;
  ids text[];
BEGIN
  IF TG_OP = 'DELETE' THEN
    EXECUTE format('SELECT array_agg(DISTINCT g.service_id) FROM gone AS g WHERE ${UNHELD}', TG_TABLE_SCHEMA)
      INTO ids;
  ELSIF TG_OP = 'UPDATE' THEN
    EXECUTE format('SELECT array_agg(g.service_id) FROM (SELECT $1 AS service_id) AS g WHERE ${UNHELD}',
      TG_TABLE_SCHEMA) INTO ids USING OLD.service_id;
  END IF;
  FOREACH child IN ARRAY ARRAY[${CHILDREN.map((c) => `'${c}'`).join(', ')}] LOOP
    IF TG_OP = 'TRUNCATE' THEN
      EXECUTE format('DELETE FROM %1$I.%2$I AS g WHERE ${UNHELD}', TG_TABLE_SCHEMA, child);
    ELSIF ids IS NOT NULL THEN
      EXECUTE format('DELETE FROM %1$I.%2$I WHERE service_id = ANY($1)', TG_TABLE_SCHEMA, child) USING ids;
    END IF;
  END LOOP;
  RETURN NULL;
END
$body$`;

/** A PostgreSQL trigger `name` on `table`, made anew: `what` is its definition after ON the table. */
const postgresTrigger = (table: string, name: string, when: string, what: string): MigrationStep => {
  const drop = `DROP TRIGGER IF EXISTS ${name} ON ${table}`;
  return {
    kind: 'sql',
    up: only('postgres', `${drop}; CREATE TRIGGER ${name} ${when} ON ${table} ${what}`),
    down: only('postgres', drop),
  };
};

const postgresTriggers = (table: string): MigrationStep[] => [
  postgresTrigger(
    table,
    `${table}_children_follow`,
    'AFTER DELETE',
    'REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION ivsync_children_follow()',
  ),
  postgresTrigger(
    table,
    `${table}_children_follow_id`,
    'AFTER UPDATE OF service_id',
    'FOR EACH ROW WHEN (OLD.service_id IS DISTINCT FROM NEW.service_id) EXECUTE FUNCTION ivsync_children_follow()',
  ),
  postgresTrigger(
    table,
    `${table}_children_follow_truncate`,
    'AFTER TRUNCATE',
    'FOR EACH STATEMENT EXECUTE FUNCTION ivsync_children_follow()',
  ),
];

export const steps: readonly MigrationStep[] = [
  ...removeOrphans,
  {
    kind: 'sql',
    up: only('postgres', POSTGRES_FUNCTION),
    down: only('postgres', 'DROP FUNCTION IF EXISTS ivsync_children_follow()'),
  },
  ...SESSIONS.flatMap((table) => [...sqliteTriggers(table), ...postgresTriggers(table)]),
];
