import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { MIGRATIONS } from '../../migrations/index.js';
import type { ColumnType, TableDef } from './schema.js';
import type { OnConflict, Row, SqlDriver, SqlExecutor } from './sql-driver.js';
import { StaticMigrationSource } from './static-migration-source.js';
import { columnValue } from './column-value.js';
import { onConflictClause } from './upsert-clause.js';

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
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * COUNT and bigint columns arrive as strings from pg (they may exceed 2^53);
 * ivsync's counts, epochs and counters never do, so they are read as numbers.
 * Set per connection, not on pg's global type table.
 */
const types: Knex.PgCustomTypesConfig = {
  getTypeParser: (oid: number, format: string): unknown => {
    if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => Number(value);
    return format === 'binary' ? pg.types.getTypeParser(oid, 'binary') : pg.types.getTypeParser(oid, 'text');
  },
};

function bindable(value: unknown): unknown {
  return value === undefined ? null : value;
}

export class PostgresDriver implements SqlDriver {
  readonly dialect = 'postgres' as const;
  readonly #knex: Knex;
  readonly #schema: string;

  private constructor(knex: Knex, schema: string) {
    this.#knex = knex;
    this.#schema = schema;
  }

  static open(options: PostgresDriverOptions): PostgresDriver {
    const knex = knexFactory({
      client: 'pg',
      connection: { connectionString: options.connectionString, types },
      searchPath: [options.schema],
      pool: { min: 0, max: options.poolSize ?? 4 },
      ...(options.knexLog ? { log: options.knexLog } : {}),
    });
    return new PostgresDriver(knex, options.schema);
  }

  async migrate(): Promise<string[]> {
    await this.#knex.raw(`CREATE SCHEMA IF NOT EXISTS "${this.#schema}"`);
    const [, applied] = (await this.#knex.migrate.latest({
      migrationSource: new StaticMigrationSource(MIGRATIONS),
      schemaName: this.#schema,
    })) as [number, string[]];
    return applied;
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#knex.transaction(async (trx) => {
      // Write transactions of one schema run one at a time, across processes
      // too: a merge reads the stored rows, decides in TypeScript, then writes.
      await trx.raw('SELECT pg_advisory_xact_lock(hashtext(current_schema()))');
      return work(executor(trx));
    });
  }

  read<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#knex.transaction((trx) => work(executor(trx)));
  }

  close(): Promise<void> {
    return this.#knex.destroy();
  }
}

function executor(trx: Knex.Transaction): SqlExecutor {
  return {
    all: async (sql, params = []) => {
      const result = (await trx.raw(sql, params.map(bindable) as Knex.RawBinding[])) as pg.QueryResult<Record<string, unknown>>;
      return result.rows;
    },
    run: async (sql, params = []) => {
      const result = (await trx.raw(sql, params.map(bindable) as Knex.RawBinding[])) as pg.QueryResult;
      return result.rowCount ?? 0;
    },
    // pg sends a JS array as a PostgreSQL array literal.
    inList: (values) => ({ sql: '(SELECT unnest(?::text[]))', params: [[...values]] }),
    write: async (table, rows, onConflict) => {
      await writeRows(trx, table, rows, onConflict);
    },
  };
}

const RECORD_TYPES: Record<ColumnType, string> = {
  text: 'text',
  real: 'double precision',
  integer: 'bigint',
  boolean: 'boolean',
  // Carried as text and cast, so a JSON document stays a document (not a JSON string).
  json: 'text',
};

/**
 * Bulk `INSERT … ON CONFLICT` with all rows in ONE json parameter that the
 * server unpacks with json_to_recordset: no per-value parameters to bind or
 * count against the 65,535 limit, and a small statement text.
 */
async function writeRows(trx: Knex.Transaction, table: TableDef, rows: readonly Row[], onConflict: OnConflict): Promise<void> {
  if (rows.length === 0) return;
  const columns = table.columns.map((c) => c.name);
  const record = table.columns.map((c) => `${c.name} ${RECORD_TYPES[c.type]}`).join(', ');
  const select = table.columns.map((c) => (c.type === 'json' ? `${c.name}::jsonb` : c.name)).join(', ');
  const docs = rows.map((row) => {
    const doc: Record<string, unknown> = {};
    for (const c of table.columns) doc[c.name] = columnValue(c, row[c.name]);
    return doc;
  });
  await trx.raw(
    `INSERT INTO ${table.name} (${columns.join(', ')}) SELECT ${select} FROM json_to_recordset(?::json) AS r(${record}) ${onConflictClause(table, onConflict)}`,
    [JSON.stringify(docs)],
  );
}
