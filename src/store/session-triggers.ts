import type { Dialect } from '../schema/dialect.js';
import type { ResourceName } from '../schema/resources.js';
import { otherResource, RESOURCES } from '../schema/session-table.js';
import { CHILD_KINDS } from './pages/orphan-children.js';

/**
 * The triggers by which a session's child rows (keyed by service_id alone)
 * go when the last session row of their id goes, as they are today: after a
 * DELETE, a change of service_id or (PostgreSQL) a TRUNCATE of a session
 * table, the children of every id neither session table holds are deleted.
 * ivsync never deletes a session row; a hand does. With them, a session new
 * to its table has child rows only where the other session table holds its
 * id (session-merge.ts). DuckDB has no triggers. Made by migration
 * 20261202000000_children_follow_sessions (which spells out its own copy);
 * a test holds a migrated target to these.
 */
export type TriggerDialect = Exclude<Dialect, 'duckdb'>;

/** The trigger names of each session table, in the order the statements create them. */
export function sessionTriggerNames(dialect: TriggerDialect): string[] {
  const suffixes = dialect === 'sqlite' ? ['', '_id'] : ['', '_id', '_truncate'];
  return RESOURCES.flatMap((table) => suffixes.map((suffix) => `${table}_children_follow${suffix}`));
}

/** The statements that create the triggers (and PostgreSQL's function) on a target without them. */
export function sessionTriggerSql(dialect: TriggerDialect): string[] {
  return dialect === 'sqlite'
    ? RESOURCES.flatMap(sqliteTriggers)
    : [POSTGRES_FUNCTION, ...RESOURCES.flatMap(postgresTriggers)];
}

function sqliteTriggers(table: ResourceName): string[] {
  const body = CHILD_KINDS.map((child) => `DELETE FROM ${child} WHERE service_id = OLD.service_id;`).join(' ');
  const unheld = `NOT EXISTS (SELECT 1 FROM ${otherResource(table)} WHERE service_id = OLD.service_id)`;
  return [
    `CREATE TRIGGER ${table}_children_follow AFTER DELETE ON ${table} WHEN ${unheld} BEGIN ${body} END`,
    `CREATE TRIGGER ${table}_children_follow_id AFTER UPDATE OF service_id ON ${table} ` +
      `WHEN OLD.service_id IS NOT NEW.service_id AND ${unheld} BEGIN ${body} END`,
  ];
}

/** `g`'s id is held by neither session table; `%1$I` is the schema of the table that fired. */
const UNHELD = RESOURCES.map((s) => `NOT EXISTS (SELECT 1 FROM %1$I.${s} AS s WHERE s.service_id = g.service_id)`).join(
  ' AND ',
);

/**
 * One function, in the target's schema, qualifying the tables with the
 * schema of the table that fired, whatever search_path the hand's session
 * has. It first gathers the ids gone from both tables into one array, then
 * deletes each child table's rows of that array by its index: a DELETE's
 * ids come as its transition table (one statement for any number of rows;
 * a join of the child tables with it was planned as a nested loop that took
 * minutes for 100,000 rows); a change of id, a row at a time (a trigger with
 * a column list has no transition tables). A TRUNCATE names none, and the
 * children of every id neither table holds go.
 */
const POSTGRES_FUNCTION = `CREATE FUNCTION ivsync_children_follow() RETURNS trigger LANGUAGE plpgsql AS $body$
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
  FOREACH child IN ARRAY ARRAY[${CHILD_KINDS.map((c) => `'${c}'`).join(', ')}] LOOP
    IF TG_OP = 'TRUNCATE' THEN
      EXECUTE format('DELETE FROM %1$I.%2$I AS g WHERE ${UNHELD}', TG_TABLE_SCHEMA, child);
    ELSIF ids IS NOT NULL THEN
      EXECUTE format('DELETE FROM %1$I.%2$I WHERE service_id = ANY($1)', TG_TABLE_SCHEMA, child) USING ids;
    END IF;
  END LOOP;
  RETURN NULL;
END
$body$`;

const postgresTriggers = (table: ResourceName): string[] => [
  `CREATE TRIGGER ${table}_children_follow AFTER DELETE ON ${table} REFERENCING OLD TABLE AS gone ` +
    'FOR EACH STATEMENT EXECUTE FUNCTION ivsync_children_follow()',
  `CREATE TRIGGER ${table}_children_follow_id AFTER UPDATE OF service_id ON ${table} FOR EACH ROW ` +
    'WHEN (OLD.service_id IS DISTINCT FROM NEW.service_id) EXECUTE FUNCTION ivsync_children_follow()',
  `CREATE TRIGGER ${table}_children_follow_truncate AFTER TRUNCATE ON ${table} ` +
    'FOR EACH STATEMENT EXECUTE FUNCTION ivsync_children_follow()',
];
