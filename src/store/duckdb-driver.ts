import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DuckDBInstance, DuckDBListValue, type DuckDBAppender, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import PQueue from 'p-queue';
import { MIGRATIONS } from '../../migrations/index.js';
import { columnValue } from './column-value.js';
import { migrateDuckdb } from './duckdb-migrator.js';
import { normalizeIso } from '../normalize/time.js';
import { readDuckdbValue } from './duckdb-read-value.js';
import { duckdbMemorySettings, type DuckdbMemoryOptions } from './duckdb-settings.js';
import type { ColumnDef, TableDef } from './schema.js';
import type { OnConflict, Row, SqlDriver, SqlExecutor } from './sql-driver.js';
import { onConflictClause } from './upsert-clause.js';

function bindable(value: unknown): DuckDBValue {
  if (value === undefined || value === null) return null;
  if (value instanceof DuckDBListValue) return value;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return value;
  return JSON.stringify(value);
}

/** Appends one value of `column`; a value of the wrong type fails loudly, naming the column. */
function appendValue(appender: DuckDBAppender, column: ColumnDef, table: string, raw: unknown): void {
  const value = columnValue(column, raw);
  if (value === null) return appender.appendNull();
  switch (column.type) {
    case 'text':
    case 'json':
      if (typeof value !== 'string') throw wrongType(table, column, value);
      return appender.appendVarchar(value);
    case 'real':
      if (typeof value !== 'number') throw wrongType(table, column, value);
      return appender.appendDouble(value);
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) throw wrongType(table, column, value);
      return appender.appendBigInt(BigInt(value));
    case 'boolean':
      if (typeof value !== 'boolean') throw wrongType(table, column, value);
      return appender.appendBoolean(value);
    case 'timestamp': {
      // As ISO text in UTC with its `Z` (a time without zone is UTC to ivsync,
      // local time to DuckDB), which DuckDB reads exactly into the TIMESTAMPTZ
      // column: the node API appends a TIMESTAMPTZ value through a generic
      // Value, several times slower.
      const iso = typeof value === 'string' ? normalizeIso(value) : null;
      if (iso === null) throw wrongType(table, column, value);
      return appender.appendVarchar(iso);
    }
  }
}

function wrongType(table: string, column: ColumnDef, value: unknown): TypeError {
  return new TypeError(`${table}.${column.name}: ${typeof value} where ${column.type} belongs`);
}

export interface DuckdbDriverOptions extends DuckdbMemoryOptions {
  /**
   * WAL size at which a commit checkpoints. DuckDB's default (16 MB) makes
   * every large group commit rewrite table and index blocks, and then makes
   * the next commit's deletes and updates work on checkpointed storage. Rows
   * not yet checkpointed are held in memory, and a checkpoint's own memory
   * grows with them: 1 GB made a backfill's peak RSS follow the history
   * (1.4 GB at 500k sessions). The WAL is folded into the file at close either way.
   * @default 64
   */
  checkpointThresholdMb?: number;
}

export class DuckdbDriver implements SqlDriver {
  readonly dialect = 'duckdb' as const;
  readonly #instance: DuckDBInstance;
  readonly #connection: DuckDBConnection;
  // One task at a time, in call order: the crawler and the receiver share the one connection and a
  // transaction spans several awaits, so two must never interleave. A failed task fails its caller only.
  readonly #lock = new PQueue({ concurrency: 1 });
  readonly #clock: () => Date;
  #closed = false;

  private constructor(instance: DuckDBInstance, connection: DuckDBConnection, clock: () => Date) {
    this.#instance = instance;
    this.#connection = connection;
    this.#clock = clock;
  }

  static async open(path: string, clock: () => Date, options: DuckdbDriverOptions = {}): Promise<DuckdbDriver> {
    if (path !== ':memory:') await mkdir(dirname(path), { recursive: true });
    const thresholdMb = Math.max(1, Math.round(options.checkpointThresholdMb ?? 64));
    const instance = await DuckDBInstance.create(path, { ...duckdbMemorySettings(options), checkpoint_threshold: `${thresholdMb}MB` });
    const connection = await instance.connect();
    return new DuckdbDriver(instance, connection, clock);
  }

  migrate(): Promise<string[]> {
    return this.#lock.add(() => migrateDuckdb(this.#executor, MIGRATIONS, this.#clock().toISOString()));
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#lock.add(() => this.#inTransaction(work));
  }

  read<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#lock.add(() => this.#inTransaction(work));
  }

  close(): Promise<void> {
    return this.#lock.add(async () => {
      if (this.#closed) return;
      this.#closed = true;
      // Fold the WAL into the file, so any DuckDB (CLI, Python) opens it as is.
      await this.#connection.run('CHECKPOINT');
      this.#connection.closeSync();
      this.#instance.closeSync();
    });
  }

  /**
   * Rows proven absent (`fail`) are appended straight into the table. Other
   * bulk rows go through the Appender into a TEMP staging table shaped like
   * the target (no constraints), then one `INSERT … SELECT … ON CONFLICT`
   * moves them: one statement per table per write, never one per row.
   */
  async #write(table: TableDef, rows: readonly Row[], onConflict: OnConflict): Promise<void> {
    if (rows.length === 0) return;
    if (onConflict === 'fail') {
      await this.#append(table, table.name, undefined, rows);
      return;
    }
    const stage = `ivsync_stage_${table.name}`;
    await this.#connection.run(`CREATE TEMP TABLE IF NOT EXISTS ${stage} AS SELECT * FROM ${table.name} LIMIT 0`);
    await this.#append(table, stage, 'temp', rows);
    const columns = table.columns.map((c) => c.name).join(', ');
    try {
      await this.#connection.run(`INSERT INTO ${table.name} (${columns}) SELECT ${columns} FROM ${stage} ${onConflictClause(table, onConflict)}`);
    } finally {
      // Dropped, not emptied: the temp catalog is never checkpointed, so the
      // row groups of deleted rows would stay in memory for the whole process.
      await this.#connection.run(`DROP TABLE ${stage}`);
    }
  }

  /** `catalog` undefined is the database file (its catalog is named after the file). */
  async #append(table: TableDef, into: string, catalog: 'temp' | undefined, rows: readonly Row[]): Promise<void> {
    const appender = await this.#connection.createAppender(into, 'main', catalog);
    try {
      for (const row of rows) {
        for (const column of table.columns) appendValue(appender, column, table.name, row[column.name]);
        appender.endRow();
      }
      appender.flushSync();
    } catch (error) {
      // Closing flushes again and fails with "transaction is aborted", which would hide why the rows were refused.
      try {
        appender.closeSync();
      } catch {
        // the first error is the one that says what happened
      }
      throw error;
    }
    appender.closeSync();
  }

  async #inTransaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    await this.#connection.run('BEGIN TRANSACTION');
    try {
      const result = await work(this.#executor);
      await this.#connection.run('COMMIT');
      return result;
    } catch (error) {
      await this.#connection.run('ROLLBACK');
      throw error;
    }
  }

  readonly #executor: SqlExecutor = {
    all: async (sql, params = []) => {
      const reader = await this.#connection.runAndReadAll(sql, params.map(bindable));
      return reader.convertRowObjects(readDuckdbValue);
    },
    run: async (sql, params = []) => {
      const result = await this.#connection.run(sql, params.map(bindable));
      return result.rowsChanged;
    },
    write: (table, rows, onConflict) => this.#write(table, rows, onConflict),
    // JSON text, unpacked by DuckDB: a LIST parameter is built one native call per value.
    inList: (values) => ({ sql: `(SELECT unnest(from_json(?, '["VARCHAR"]')))`, params: [JSON.stringify(values)] }),
  };
}
