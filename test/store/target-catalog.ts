import { createHash } from 'node:crypto';
import type { Dialect } from '../../src/schema/dialect.js';
import { retypeExpression } from '../../src/store/migration/retype-column.js';
import type { QueryableSink } from '../../src/store/sql-sink.js';

/** One column as the target's own catalog describes it. */
export interface CatalogColumn {
  readonly name: string;
  readonly type: string;
  readonly notNull: boolean;
}

/**
 * What a target's catalog says of its ivsync tables and views: per table its
 * columns in order (type, NOT NULL), its primary key and its other indexes
 * (name, columns, unique); per view its SQL with whitespace collapsed (a view
 * is the same whatever line breaks its text had). knex's bookkeeping is left out.
 */
export interface TargetSchema {
  readonly tables: Record<string, { columns: CatalogColumn[]; primaryKey: string[]; indexes: string[] }>;
  readonly views: Record<string, string>;
  /** Triggers by name, each its definition; PostgreSQL's functions as `function <name>` with their source. */
  readonly triggers: Record<string, string>;
}

const squash = (sql: string): string => sql.replace(/\s+/g, ' ').trim();

export async function targetSchema(sink: QueryableSink, dialect: Dialect): Promise<TargetSchema> {
  switch (dialect) {
    case 'sqlite':
      return sqliteSchema(sink);
    case 'duckdb':
      return duckdbSchema(sink);
    case 'postgres':
      return postgresSchema(sink);
  }
}

const isIvsyncTable = (name: string): boolean => !name.startsWith('knex_') && !name.startsWith('sqlite_');

async function sqliteSchema(sink: QueryableSink): Promise<TargetSchema> {
  const tables: TargetSchema['tables'] = {};
  const names = await sink.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  for (const { name } of names) {
    const table = String(name);
    if (!isIvsyncTable(table)) continue;
    const columns = await sink.query(
      `SELECT name, lower(type) AS type, "notnull" AS nn, pk FROM pragma_table_info('${table}') ORDER BY cid`,
    );
    const indexList = await sink.query(
      `SELECT name, "unique" AS u, origin FROM pragma_index_list('${table}') ORDER BY name`,
    );
    const indexes: string[] = [];
    for (const index of indexList) {
      if (index.origin === 'pk') continue;
      const on = await sink.query(`SELECT name FROM pragma_index_info('${String(index.name)}') ORDER BY seqno`);
      const unique = Number(index.u) === 1 ? ' unique' : '';
      indexes.push(`${String(index.name)} (${on.map((c) => String(c.name)).join(', ')})${unique}`);
    }
    tables[table] = {
      columns: columns.map((c) => ({ name: String(c.name), type: String(c.type), notNull: Number(c.nn) === 1 })),
      primaryKey: columns
        .filter((c) => Number(c.pk) > 0)
        .sort((a, b) => Number(a.pk) - Number(b.pk))
        .map((c) => String(c.name)),
      indexes,
    };
  }
  const views = await sink.query("SELECT name, sql FROM sqlite_master WHERE type = 'view' ORDER BY name");
  const triggers = await sink.query("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name");
  // sqlite_master keeps the statement as written; the definition is what follows AS.
  return {
    tables,
    views: viewMap(views, 'name', 'sql'),
    triggers: Object.fromEntries(triggers.map((t) => [String(t.name), squash(String(t.sql))])),
  };
}

/** Views by name, each its definition: what follows `AS` in the statement, whitespace collapsed. */
function viewMap(rows: readonly Record<string, unknown>[], name: string, sql: string): Record<string, string> {
  const definition = (text: unknown): string => squash(String(text).replace(/^CREATE VIEW \w+ AS /i, ''));
  return Object.fromEntries(rows.map((v) => [String(v[name]), definition(v[sql])]));
}

/** DuckDB's catalog functions, narrowed to the target's own tables. */
const DUCKDB_MAIN = "database_name = current_database() AND schema_name = 'main'";

async function duckdbSchema(sink: QueryableSink): Promise<TargetSchema> {
  const tables: TargetSchema['tables'] = {};
  const columns = await sink.query(
    `SELECT table_name, column_name, data_type, is_nullable FROM duckdb_columns()
     WHERE ${DUCKDB_MAIN} AND NOT internal ORDER BY table_name, column_index`,
  );
  const keys = await sink.query(
    `SELECT table_name, constraint_type, constraint_column_names FROM duckdb_constraints()
     WHERE ${DUCKDB_MAIN} AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')`,
  );
  const indexes = await sink.query(`SELECT table_name, index_name, sql FROM duckdb_indexes() WHERE ${DUCKDB_MAIN}`);
  const views = await sink.query(
    `SELECT view_name, sql FROM duckdb_views() WHERE ${DUCKDB_MAIN} AND NOT internal ORDER BY view_name`,
  );
  const viewNames = new Set(views.map((v) => String(v.view_name)));
  for (const c of columns) {
    const table = String(c.table_name);
    if (!isIvsyncTable(table) || viewNames.has(table)) continue;
    tables[table] ??= { columns: [], primaryKey: [], indexes: [] };
    const column = { name: String(c.column_name), type: String(c.data_type), notNull: c.is_nullable === false };
    tables[table].columns.push(column);
  }
  for (const k of keys) {
    const entry = tables[String(k.table_name)];
    if (!entry) continue;
    const cols = (k.constraint_column_names as unknown[]).map(String);
    if (k.constraint_type === 'PRIMARY KEY') entry.primaryKey = cols;
    else entry.indexes.push(`unique (${cols.join(', ')})`);
  }
  for (const i of indexes) {
    tables[String(i.table_name)]?.indexes.push(`${String(i.index_name)} ${squash(String(i.sql))}`);
  }
  // DuckDB keeps a view as it prints the parsed query, and prints a type name quoted or not depending on how the
  // catalog was last loaded (`AS "DATE"` after a checkpoint, `AS DATE` before): a type cast is compared unquoted.
  // Likewise the parentheses of a chain of UNION ALL: a view kept through a checkpoint that rewrote the catalog
  // around it prints `A UNION ALL ((B) UNION ALL (C))` for `A UNION ALL (B) UNION ALL (C)`, so they are left out.
  const printed = views.map((v) => ({
    ...v,
    sql: String(v.sql)
      .replace(/ AS "([A-Z]+)"\)/g, ' AS $1)')
      .replace(/[()]/g, ' '),
  }));
  return { tables, views: viewMap(printed, 'view_name', 'sql'), triggers: {} };
}

async function postgresSchema(sink: QueryableSink): Promise<TargetSchema> {
  const tables: TargetSchema['tables'] = {};
  const columns = await sink.query(
    `SELECT c.relname AS table_name, a.attname AS column_name, format_type(a.atttypid, a.atttypmod) AS type,
       a.attnotnull AS not_null
     FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
     WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
     ORDER BY c.relname, a.attnum`,
  );
  for (const c of columns) {
    const table = String(c.table_name);
    if (!isIvsyncTable(table)) continue;
    tables[table] ??= { columns: [], primaryKey: [], indexes: [] };
    tables[table].columns.push({ name: String(c.column_name), type: String(c.type), notNull: c.not_null === true });
  }
  const keys = await sink.query(
    `SELECT c.relname AS table_name, k.conname,
       (SELECT string_agg(a.attname, ',' ORDER BY u.i) FROM unnest(k.conkey) WITH ORDINALITY u(n, i)
       JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n) AS cols
     FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
     WHERE k.connamespace = current_schema()::regnamespace AND k.contype = 'p'`,
  );
  for (const k of keys) {
    const entry = tables[String(k.table_name)];
    if (entry) entry.primaryKey = String(k.cols).split(',');
  }
  const indexes = await sink.query(
    'SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname',
  );
  for (const i of indexes) {
    // The schema's own name differs from target to target.
    tables[String(i.tablename)]?.indexes.push(String(i.indexdef).replace(/ ON \S+\./, ' ON '));
  }
  const views = await sink.query(
    'SELECT viewname, definition FROM pg_views WHERE schemaname = current_schema() ORDER BY viewname',
  );
  const triggers = await sink.query(
    `SELECT t.tgname AS name, pg_get_triggerdef(t.oid) AS sql FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
     WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal
     UNION ALL
     SELECT 'function ' || proname, prosrc FROM pg_proc WHERE pronamespace = current_schema()::regnamespace`,
  );
  return {
    tables,
    views: Object.fromEntries(views.map((v) => [String(v.viewname), squash(String(v.definition))])),
    // The schema's own name differs from target to target.
    triggers: Object.fromEntries(
      triggers.map((t) => [String(t.name), squash(String(t.sql).replace(/ ON \S+\./, ' ON '))]),
    ),
  };
}

/**
 * A checksum of every row of every table in `schema`, per table: each column
 * read as text where its type may change in a migration (times in the ISO form
 * ivsync stores in SQLite, JSON as its text), rows in primary key order. The
 * same rows give the same checksum before and after a column is retyped.
 */
export async function tableChecksums(
  sink: QueryableSink,
  dialect: Dialect,
  schema: TargetSchema,
  /** `table.column`s a migration rewrites on purpose, checked on their own. */
  skip: readonly string[] = [],
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [table, def] of Object.entries(schema.tables)) {
    const select = def.columns
      .filter((c) => !skip.includes(`${table}.${c.name}`))
      .map((c) => `${readAsText(dialect, c)} AS ${c.name}`)
      .join(', ');
    const order = (def.primaryKey.length > 0 ? def.primaryKey : def.columns.map((c) => c.name)).join(', ');
    const rows = await sink.query(`SELECT ${select} FROM ${table} ORDER BY ${order}`);
    out[table] = `${rows.length}:${createHash('sha256').update(JSON.stringify(rows)).digest('hex')}`;
  }
  return out;
}

function readAsText(dialect: Dialect, column: CatalogColumn): string {
  const type = column.type.toLowerCase();
  if (dialect === 'sqlite') return column.name;
  if (type.startsWith('timestamp')) return retypeExpression(dialect, column.name, 'timestamptz', 'text');
  const text = dialect === 'postgres' ? 'text' : 'VARCHAR';
  if (type === 'json' || type === 'jsonb') return `CAST(${column.name} AS ${text})`;
  return column.name;
}

/**
 * The tables of `before` (an older step's schema) with their columns as
 * `schema` has them now, in the order `before` had them by key: what a
 * migration must keep, read alike before and after. A table that is a view
 * now keeps its old columns: the view must show the rows the table held.
 */
export function columnsOf(schema: TargetSchema, before: TargetSchema): TargetSchema {
  const tables: TargetSchema['tables'] = {};
  for (const [name, def] of Object.entries(before.tables)) {
    const now = schema.tables[name];
    if (!now) {
      // A table a migration turned into a view of the same name and columns (session_history) is read through it.
      if (!(name in schema.views)) throw new Error(`table ${name} is gone`);
      tables[name] = def;
      continue;
    }
    const columns = now.columns.filter((c) => def.columns.some((d) => d.name === c.name));
    tables[name] = { ...now, primaryKey: def.primaryKey, columns };
  }
  return { tables, views: {}, triggers: {} };
}
