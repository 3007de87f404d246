import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type { ColumnType, TableDef } from '../../../schema/schema.js';
import type { Migration } from '../../migration/migration-step.js';
import {
  EACH_CHUNK,
  type CsvCopy,
  type KeyColumn,
  type OnConflict,
  type Row,
  type SqlDriver,
  type SqlExecutor,
} from '../sql-driver.js';
import { StaticMigrationSource } from '../static-migration-source.js';
import { normalizeIso } from '../../../normalize/time.js';
import { sqlType } from '../../../schema/column-sql-type.js';
import { columnValue } from '../column-value.js';
import { onConflictClause } from '../upsert-clause.js';
import { AdvisoryLocks } from './advisory-locks.js';
import { arrayLiteral } from './array-literal.js';
import { copyCsvPieces } from './copy-csv.js';
import { COPY_MIN_ROWS, copyRows } from './copy-rows.js';
import { TableStatistics, type TableStatisticsOptions } from './table-statistics.js';
import { sessionTriggerNames } from '../../session-triggers.js';

export interface PostgresDriverOptions {
  /** Connection string without ivsync's own `schema` parameter. */
  connectionString: string;
  /** Schema that holds every table and view; created when missing. */
  schema: string;
  /**
   * Pooled connections.
   * @default 4
   */
  poolSize?: number;
  /** Where knex's own messages go. @default knex's console logging */
  knexLog?: Knex.Logger;
  /** When the planner's statistics are brought up to date (table-statistics.ts). */
  statistics?: TableStatisticsOptions;
}

/** The array types a relation of keys' columns are sent as (keyRelation). */
const POSTGRES_KEY_TYPES: Record<KeyColumn['type'], string> = {
  text: 'text',
  integer: 'bigint',
  timestamp: 'timestamptz',
};

/** PostgreSQL's type oids (pg_type) whose text ivsync reads its own way. */
const OID = {
  int8: 20,
  numeric: 1700,
  json: 114,
  jsonb: 3802,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
} as const;

/**
 * `2026-01-02 03:04:05.123456+00` (PostgreSQL's output: fraction digits
 * trimmed, the session's zone) as the ISO text every driver hands out for a
 * `timestamp` column, `2026-01-02T03:04:05.123456Z`. Text that is not a finite
 * instant (`infinity`) passes as it is.
 */
function isoFromPostgresTime(text: string): string {
  return normalizeIso(text) ?? text;
}

/**
 * How values arrive from pg, set per connection rather than on pg's global
 * type table (another pg user in the process keeps its own). COUNT and bigint
 * columns arrive as strings (they may exceed 2^53); ivsync's counts, epochs
 * and counters never do, so they are read as numbers. Times become ISO text
 * with microseconds (pg would make a Date of them, which keeps milliseconds),
 * dates stay `YYYY-MM-DD`, and JSON stays the text stored (pg would parse it).
 */
const types: Knex.PgCustomTypesConfig = {
  getTypeParser: (oid: number, format: string): unknown => {
    if (oid === OID.int8 || oid === OID.numeric) return (value: string) => Number(value);
    if (format !== 'binary') {
      switch (oid) {
        case OID.timestamptz:
        case OID.timestamp:
          return isoFromPostgresTime;
        case OID.json:
        case OID.jsonb:
        case OID.date:
          return (value: string) => value;
      }
    }
    return format === 'binary' ? pg.types.getTypeParser(oid, 'binary') : pg.types.getTypeParser(oid, 'text');
  },
};

/**
 * What every connection of the pool is set to when it opens: UTC, whatever
 * the server, the role or the URL's `options` set (casts of times to dates and
 * text then mean UTC); and no parallel workers for its statements. A
 * commit's look-ups of a group's ids in two or three tables at once (a UNION
 * ALL) were planned as a Gather over a parallel append of index scans; the
 * workers, new server processes, took 50 ms to start for a read of 1 ms
 * without them. Set on the connection rather than first in each write
 * transaction, which cost every commit a round trip.
 */
const CONNECTION_SETTINGS = "SET TIME ZONE 'UTC'; SET max_parallel_workers_per_gather = 0";

/**
 * The first statement of a read transaction (`status`, an export's reads,
 * a run's plan): the server's own setting of parallel workers, which may
 * speed up the counts of a long history.
 */
const SERVER_PLANS = 'SET LOCAL max_parallel_workers_per_gather = DEFAULT';

/** Sets a new connection of the pool up (CONNECTION_SETTINGS). */
function configure(connection: pg.Client, done: (error: Error | null, connection: pg.Client) => void): void {
  connection.query(CONNECTION_SETTINGS).then(
    () => done(null, connection),
    (error: Error) => done(error, connection),
  );
}

function bindable(value: unknown): unknown {
  return value === undefined ? null : value;
}

export class PostgresDriver implements SqlDriver {
  readonly dialect = 'postgres' as const;
  readonly #knex: Knex;
  readonly #schema: string;
  readonly #statistics: TableStatistics;
  /** Whether the session tables' triggers are there (SqlExecutor.childrenFollowSessions); null until a write looks. */
  #childrenFollow: boolean | null = null;

  private constructor(knex: Knex, schema: string, statistics: TableStatisticsOptions = {}) {
    this.#knex = knex;
    this.#schema = schema;
    this.#statistics = new TableStatistics(knex, schema, statistics);
  }

  static open(options: PostgresDriverOptions): PostgresDriver {
    const knex = knexFactory({
      client: 'pg',
      connection: { connectionString: options.connectionString, types },
      searchPath: [options.schema],
      pool: { min: 0, max: options.poolSize ?? 4, afterCreate: configure },
      ...(options.knexLog ? { log: options.knexLog } : {}),
    });
    return new PostgresDriver(knex, options.schema, options.statistics);
  }

  async migrate(migrations: readonly Migration[]): Promise<string[]> {
    await this.#knex.raw(`CREATE SCHEMA IF NOT EXISTS "${this.#schema}"`);
    const [, applied] = (await this.#knex.migrate.latest({
      migrationSource: new StaticMigrationSource(migrations),
      schemaName: this.#schema,
    })) as [number, string[]];
    this.#childrenFollow = null;
    return applied;
  }

  async isMigrated(): Promise<boolean> {
    const found = await this.#knex.raw(
      "SELECT 1 FROM information_schema.tables WHERE table_schema = ? AND table_name = 'knex_migrations'",
      [this.#schema],
    );
    return (found as pg.QueryResult).rows.length > 0;
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    // Write transactions run side by side, across processes too; a store
    // locks the keys it reads, decides on and writes (advisory-locks.ts).
    const written = new Map<string, number>();
    const wrote = (name: string, rows: number) => written.set(name, (written.get(name) ?? 0) + rows);
    const result = await this.#knex.transaction(async (trx) => {
      this.#childrenFollow ??= await hasSessionTriggers(trx, this.#schema);
      return work(executor(trx, wrote, this.#childrenFollow));
    });
    this.#statistics.committed(written);
    return result;
  }

  read<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#knex.transaction(async (trx) => {
      await trx.raw(SERVER_PLANS);
      return work(executor(trx));
    });
  }

  copyCsv(copy: CsvCopy): Promise<boolean> {
    return this.#knex.transaction((trx) => copyCsvPieces(trx, copy), {
      isolationLevel: 'repeatable read',
      readOnly: true,
    });
  }

  async close(): Promise<void> {
    await this.#statistics.settled();
    await this.#knex.destroy();
  }
}

/** Whether every trigger by which child rows follow their sessions is there, and enabled (session-triggers.ts). */
async function hasSessionTriggers(trx: Knex.Transaction, schema: string): Promise<boolean> {
  const names = sessionTriggerNames('postgres');
  const found = (await trx.raw(
    `SELECT count(*)::int AS n FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = ? AND t.tgname = ANY(?::text[]) AND t.tgenabled <> 'D'`,
    [schema, arrayLiteral(names)],
  )) as pg.QueryResult<{ n: number }>;
  return found.rows[0]?.n === names.length;
}

/** `wrote` counts the rows each write hands over, per table. */
function executor(
  trx: Knex.Transaction,
  wrote: (table: string, rows: number) => void = () => undefined,
  childrenFollowSessions = false,
): SqlExecutor {
  const locks = new AdvisoryLocks(trx);
  return {
    childrenFollowSessions,
    all: async (sql, params = []) => {
      const result = (await trx.raw(sql, params.map(bindable) as Knex.RawBinding[])) as pg.QueryResult<
        Record<string, unknown>
      >;
      return result.rows;
    },
    each: async (sql, params, visit) => {
      // A cursor lives in its transaction; one query at a time runs on it.
      await trx.raw(`DECLARE ivsync_each NO SCROLL CURSOR FOR ${sql}`, params.map(bindable) as Knex.RawBinding[]);
      for (;;) {
        const { rows } = (await trx.raw(`FETCH ${EACH_CHUNK} FROM ivsync_each`)) as pg.QueryResult<
          Record<string, unknown>
        >;
        if (rows.length > 0) visit(rows);
        if (rows.length < EACH_CHUNK) break;
      }
      await trx.raw('CLOSE ivsync_each');
    },
    run: async (sql, params = []) => {
      const result = (await trx.raw(sql, params.map(bindable) as Knex.RawBinding[])) as pg.QueryResult;
      return result.rowCount ?? 0;
    },
    // The list as one array's text (array-literal.ts). `= ANY` is estimated from the column's statistics
    // (sql-driver.ts).
    whereIn: (column, values) => ({ sql: `${column} = ANY(?::text[])`, params: [arrayLiteral(values)] }),
    // An array per column, unnested side by side.
    keyRelation: (columns, tuples) => ({
      sql:
        `(SELECT * FROM unnest(${columns.map((c) => `?::${POSTGRES_KEY_TYPES[c.type]}[]`).join(', ')}) ` +
        `AS keys (${columns.map((c) => c.name).join(', ')}))`,
      params: columns.map((_, i) => arrayLiteral(tuples.map((t) => t[i]!))),
    }),
    write: async (table, rows, onConflict) => {
      wrote(table.name, rows.length);
      if (onConflict === 'fail' && rows.length >= COPY_MIN_ROWS) await copyRows(trx, table, rows);
      else await writeRows(trx, table, rows, onConflict);
    },
    lock: (keys) => locks.lock(keys),
  };
}

/**
 * The json_to_recordset record's type of a column: its own, except JSON,
 * carried as text and cast, so a JSON document stays a document (not a JSON
 * string). A time arrives as ISO text with its zone and is read as such.
 */
function recordType(type: ColumnType): string {
  return type === 'json' ? 'text' : sqlType(type, 'postgres');
}

/**
 * Bulk `INSERT … ON CONFLICT` with all rows in ONE json parameter that the
 * server unpacks with json_to_recordset: no per-value parameters to bind or
 * count against the 65,535 limit, and a small statement text.
 */
async function writeRows(
  trx: Knex.Transaction,
  table: TableDef,
  rows: readonly Row[],
  onConflict: OnConflict,
): Promise<void> {
  if (rows.length === 0) return;
  const columns = table.columns.map((c) => c.name);
  const record = table.columns.map((c) => `${c.name} ${recordType(c.type)}`).join(', ');
  const select = table.columns.map((c) => (c.type === 'json' ? `${c.name}::json` : c.name)).join(', ');
  const docs = rows.map((row) => {
    const doc: Record<string, unknown> = {};
    for (const c of table.columns) doc[c.name] = columnValue(c, row[c.name]);
    return doc;
  });
  await trx.raw(
    `INSERT INTO ${table.name} (${columns.join(', ')}) SELECT ${select} FROM json_to_recordset(?::json) AS ` +
      `r(${record}) ${onConflictClause(table, onConflict)}`,
    [JSON.stringify(docs)],
  );
}
