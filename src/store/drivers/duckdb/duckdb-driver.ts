import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type DuckDBInstance, DuckDBListValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import PQueue from 'p-queue';
import { migrateDuckdb } from './duckdb-migrator.js';
import { readDuckdbValue } from './duckdb-read-value.js';
import { appendValue, withAppender } from './duckdb-appender.js';
import { FileHeldIds } from './duckdb-held-ids.js';
import { duckdbIdHashes } from './duckdb-id-hashes.js';
import { DuckdbRowids } from './duckdb-rowids.js';
import { duckdbKeyless, keylessWriteStatements } from './duckdb-keyless.js';
import { openDatabase, type OpenWait } from './duckdb-open.js';
import { tableBlocksBound, tableBlocksOverBound } from './duckdb-pool-bound.js';
import { ScanPool } from './duckdb-scan-pool.js';
import { duckdbMemorySettings, poolMegabytes, type DuckdbMemoryOptions } from './duckdb-settings.js';
import type { TableDef } from '../../../schema/schema.js';
import type { Migration } from '../../migration/migration-step.js';
import type { KeyColumn, OnConflict, Row, SqlDriver, SqlExecutor } from '../sql-driver.js';
import { fileSize, WAL_BOUND_ROWS, walOverBound } from '../wal-bound.js';
import { onConflictClause } from '../upsert-clause.js';

function bindable(value: unknown): DuckDBValue {
  if (value === undefined || value === null) return null;
  if (value instanceof DuckDBListValue) return value;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return value;
  return JSON.stringify(value);
}

export interface DuckdbDriverOptions extends DuckdbMemoryOptions {
  /**
   * WAL size at which a commit checkpoints. Rows not yet checkpointed are
   * held uncompressed in the buffer pool, and what does not fit is spilled to
   * the temp directory: 1 GB made a backfill's peak RSS follow the history
   * (1.4 GB at 500k sessions), and 64 MB, once the WAL bound (wal-bound.ts)
   * let the WAL reach it late in a 1M-session backfill, spilled up to 240 MB
   * and took RSS past 500 MB; spilling un-checkpointed rows is also the path
   * of DuckDB's "Corrupted in-memory column" checkpoint failure
   * (duckdb/duckdb#16998). DuckDB's own default keeps them a fraction of the
   * pool; the session tables have no key index to rewrite
   * (duckdb-keyless.ts), so the more frequent checkpoints cost little. What a
   * checkpoint pins grows with the history as well as with the WAL: at 16 MB a
   * 2M-session backfill failed a checkpoint at 1.4M sessions ("failed to pin
   * block"), with a 96 MB pool and with a 128 MB one (at 1.83M); at 8 MB it
   * completed once and failed once at 96% or later (docs/troubleshooting.md, Known limits).
   * The WAL is folded into the file at close either way, and after any commit
   * that leaves it past the WAL bound.
   * @default 8
   */
  checkpointThresholdMb?: number;
  /**
   * When another process has the file open (DuckDB locks it for the life of
   * an instance), wait for it to let go instead of failing with
   * TargetLockedError. `onWait` is told the holder once, when the wait begins;
   * an abort of `signal` ends the wait with InterruptedError.
   * @default fail at once
   */
  wait?: OpenWait;
  /**
   * Table blocks the instance may hold before the file is opened anew (see duckdb-pool-bound.ts).
   * @default an eighth of the pool
   */
  tableBlocksMb?: number;
  /**
   * Sessions the process inserts as new before it builds its held-id filter (see FileHeldIds).
   * @default BUILD_AFTER_NEW (duckdb-held-ids.ts)
   */
  heldIdsAfterNew?: number;
}

/** DuckDB's refusal of a file it gave up on (a failed checkpoint), until it is attached again. */
const INVALIDATED = /has been invalidated/;

/** The types from_json gives a relation of keys' columns (keyRelation). */
const DUCKDB_KEY_TYPES: Record<KeyColumn['type'], string> = {
  text: 'VARCHAR',
  integer: 'BIGINT',
  timestamp: 'TIMESTAMPTZ',
};

export class DuckdbDriver implements SqlDriver {
  readonly dialect = 'duckdb' as const;
  #instance: DuckDBInstance;
  #connection: DuckDBConnection;
  /** The settings the database was opened with, to open it again the same. */
  readonly #config: Record<string, string>;
  /** Bytes of table blocks past which the file is opened anew. */
  readonly #tableBlocksBytes: number;
  // One task at a time, in call order: the crawler and the receiver share the one connection and a
  // transaction spans several awaits, so two must never interleave. A failed task fails its caller only.
  readonly #lock = new PQueue({ concurrency: 1 });
  readonly #clock: () => Date;
  /** The smaller pool of a transaction that reads the tables for ids the filter may hold; whole for its COMMIT. */
  readonly #scanPool: ScanPool;
  #closed = false;

  /** The database file; null in memory. */
  readonly #path: string | null;
  /** Rows written by the write transaction under way. */
  #rowsWritten = 0;
  /** DuckDB gave up on the file (a checkpoint that could not be written): it is attached again before the next use. */
  #invalidated = false;
  /** The ids the file holds rows for, per kind of table (see HeldIds). */
  readonly #held: FileHeldIds;

  private constructor(
    instance: DuckDBInstance,
    connection: DuckDBConnection,
    clock: () => Date,
    path: string,
    config: Record<string, string>,
    pool: { mb: number; tableBlocksBytes: number },
    heldIdsAfterNew: number | undefined,
  ) {
    this.#instance = instance;
    this.#config = config;
    this.#tableBlocksBytes = pool.tableBlocksBytes;
    this.#path = path === ':memory:' ? null : path;
    this.#connection = connection;
    this.#clock = clock;
    this.#scanPool = new ScanPool(pool.mb, () => this.#connection);
    this.#held = new FileHeldIds(
      duckdbIdHashes(() => this.#connection),
      (maybe, asked) => this.#scanPool.narrow(maybe, asked),
      heldIdsAfterNew,
    );
  }

  static async open(path: string, clock: () => Date, options: DuckdbDriverOptions = {}): Promise<DuckdbDriver> {
    if (path !== ':memory:') await mkdir(dirname(path), { recursive: true });
    const thresholdMb = Math.max(1, Math.round(options.checkpointThresholdMb ?? 8));
    const config = { ...duckdbMemorySettings(options), checkpoint_threshold: `${thresholdMb}MB` };
    const { instance, connection } = await openDatabase(path, config, options.wait);
    const mb = poolMegabytes(options);
    const bytes = options.tableBlocksMb === undefined ? tableBlocksBound(mb) : options.tableBlocksMb * 2 ** 20;
    const pool = { mb, tableBlocksBytes: bytes };
    return new DuckdbDriver(instance, connection, clock, path, config, pool, options.heldIdsAfterNew);
  }

  migrate(migrations: readonly Migration[]): Promise<string[]> {
    return this.#lock.add(() => migrateDuckdb(this.#executor, migrations, this.#clock().toISOString()));
  }

  isMigrated(): Promise<boolean> {
    return this.#lock.add(async () => {
      const found = await this.#executor.all(
        "SELECT 1 FROM information_schema.tables WHERE table_schema = 'main' AND table_name = 'knex_migrations'",
      );
      return found.length > 0;
    });
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#lock.add(async () => {
      this.#rowsWritten = 0;
      const result = await this.#inTransaction(work);
      if (this.#path !== null && this.#rowsWritten >= WAL_BOUND_ROWS) {
        await this.#boundWal(this.#path);
        await this.#boundTableBlocks(this.#path);
      }
      return result;
    });
  }

  read<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#lock.add(() => this.#inTransaction(work));
  }

  close(): Promise<void> {
    return this.#lock.add(async () => {
      if (this.#closed) return;
      this.#closed = true;
      try {
        // Fold the WAL into the file, so any DuckDB (CLI, Python) opens it as is.
        await this.#connection.run('CHECKPOINT');
      } finally {
        // Closed even when the checkpoint fails (a full disk): the WAL keeps every commit, and the next open replays
        // it.
        this.#connection.closeSync();
        this.#instance.closeSync();
      }
    });
  }

  /**
   * After a write commit of at least WAL_BOUND_ROWS rows: a WAL past its bound (see walOverBound) is folded
   * into the file. DuckDB's own threshold is a fixed size, and a large one
   * keeps a backfill fast (see checkpointThresholdMb) but lets the WAL grow
   * as large as the data; a bound that grows with the file costs few
   * checkpoints and keeps the disk a backfill needs near the file it leaves.
   * A checkpoint that fails (a full disk) leaves the WAL, whose commits
   * stand, to the next commit or the next run.
   */
  async #boundWal(path: string): Promise<void> {
    if (!walOverBound(fileSize(`${path}.wal`), fileSize(path))) return;
    await this.#connection.run('CHECKPOINT').catch((error: unknown) => this.#noteInvalidated(error));
  }

  #noteInvalidated(error: unknown): void {
    if (INVALIDATED.test(error instanceof Error ? error.message : String(error))) this.#invalidated = true;
  }

  /**
   * Rows proven absent (`fail`) are appended straight into the table. Other
   * bulk rows go through the Appender into a TEMP staging table shaped like
   * the target (no constraints), then one `INSERT … SELECT … ON CONFLICT`
   * moves them (a DELETE and an INSERT for a keyless table, see
   * duckdb-keyless.ts): a statement or two per table per write, never one per row.
   */
  async #write(table: TableDef, rows: readonly Row[], onConflict: OnConflict): Promise<void> {
    if (rows.length === 0) return;
    this.#rowsWritten += rows.length;
    this.#held.wrote(table.name, rows, onConflict);
    const replaced = onConflict === 'replace' ? this.#rowids.replaced(table, rows) : null;
    this.#rowids.wrote(table.name, rows, onConflict);
    if (onConflict === 'fail') {
      await this.#append(table, table.name, undefined, rows);
      return;
    }
    const stage = `ivsync_stage_${table.name}`;
    await this.#connection.run(`CREATE TEMP TABLE IF NOT EXISTS ${stage} AS SELECT * FROM ${table.name} LIMIT 0`);
    await this.#append(table, stage, 'temp', rows);
    const columns = table.columns.map((c) => c.name).join(', ');
    const moves = duckdbKeyless(table.name)
      ? keylessWriteStatements(table, stage, onConflict, replaced)
      : [
          `INSERT INTO ${table.name} (${columns}) SELECT ${columns} FROM ${stage} ` +
            `${onConflictClause(table, onConflict)}`,
        ];
    // A refused row aborts the transaction: its ROLLBACK drops the staging
    // table created in it, and a DROP here would fail and hide why.
    for (const sql of moves) await this.#connection.run(sql);
    // Dropped, not emptied: the temp catalog is never checkpointed, so the
    // row groups of deleted rows would stay in memory for the whole process.
    await this.#connection.run(`DROP TABLE ${stage}`);
  }

  /** `catalog` undefined is the database file (the default catalog, named after the file). */
  async #append(table: TableDef, into: string, catalog: 'temp' | undefined, rows: readonly Row[]): Promise<void> {
    await withAppender(this.#connection, into, catalog, (appender) => {
      for (const row of rows) {
        for (const column of table.columns) appendValue(appender, column, table.name, row[column.name]);
        appender.endRow();
      }
      appender.flushSync();
    });
  }

  /**
   * After a write commit: table blocks past their share of the pool (see
   * duckdb-pool-bound.ts) are let go by opening the file anew, its WAL folded
   * in first. A checkpoint that fails leaves the WAL, which the open replays.
   * Nothing here fails the transaction, which has committed: an open that
   * fails leaves the file to be opened by the next one, which fails with why.
   */
  async #boundTableBlocks(path: string): Promise<void> {
    if (!(await tableBlocksOverBound(this.#connection, this.#tableBlocksBytes).catch(() => false))) return;
    await this.#connection.run('CHECKPOINT').catch(() => undefined);
    await this.#reopen(path).catch(() => undefined);
  }

  /**
   * A file DuckDB invalidated (a checkpoint failed on a full disk) takes no
   * more statements until it is detached and attached again; everything
   * committed is in its WAL, which the attach replays. Once there is room
   * (the run's end, written into the disk reserve) the target works again.
   */
  async #reattachIfInvalidated(): Promise<void> {
    if (!this.#invalidated || this.#path === null) return;
    // It refuses even a USE of another catalog, so the database is opened anew.
    await this.#reopen(this.#path);
    this.#held.forget();
  }

  /**
   * Closes the database and opens it again with the same settings. Another
   * process waiting for the file may take it in between: this one then waits
   * its turn, and forgets the ids it knew the file to hold.
   */
  async #reopen(path: string): Promise<void> {
    // Closed twice is no harm: until the open succeeds, the next transaction opens the file first.
    this.#invalidated = true;
    this.#connection.closeSync();
    this.#instance.closeSync();
    let waited = false;
    const wait = { signal: new AbortController().signal, onWait: () => (waited = true) };
    const reopened = await openDatabase(path, this.#config, wait);
    this.#instance = reopened.instance;
    this.#connection = reopened.connection;
    this.#invalidated = false;
    if (waited) this.#held.forget();
  }

  async #inTransaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    await this.#reattachIfInvalidated();
    await this.#connection.run('BEGIN TRANSACTION').catch((error: unknown) => {
      this.#noteInvalidated(error);
      throw error;
    });
    try {
      const result = await work(this.#executor);
      await this.#scanPool.widen();
      await this.#connection.run('COMMIT');
      return result;
    } catch (error) {
      // A COMMIT that failed (out of memory, a checkpoint that could not be
      // written) has ended the transaction already, and DuckDB refuses the
      // ROLLBACK with "no transaction is active", which would hide why.
      await this.#connection.run('ROLLBACK').catch(() => undefined);
      await this.#scanPool.widen().catch(() => undefined);
      this.#noteInvalidated(error);
      throw error;
    } finally {
      this.#held.settle();
      this.#rowids.forget();
    }
  }

  async #run(sql: string, params: readonly unknown[]): Promise<number> {
    const result = await this.#connection.run(sql, params.map(bindable));
    return result.rowsChanged;
  }

  readonly #rowids = new DuckdbRowids({
    all: (sql, params) => this.#executor.all(sql, params),
    run: (sql, params = []) => this.#run(sql, params),
    whereIn: (column, values) => this.#executor.whereIn(column, values),
  });

  readonly #executor: SqlExecutor = {
    all: async (sql, params = []) => {
      const reader = await this.#connection.runAndReadAll(sql, params.map(bindable));
      return reader.convertRowObjects(readDuckdbValue);
    },
    each: async (sql, params, visit) => {
      // Streamed: DuckDB produces the result a data chunk (2,048 rows) at a time.
      const result = await this.#connection.stream(sql, params.map(bindable));
      for await (const rows of result.yieldConvertedRowObjects(readDuckdbValue)) if (rows.length > 0) visit(rows);
    },
    run: (sql, params = []) => {
      // Any statement may move rows: the rowids read before are no longer known.
      this.#rowids.forget();
      return this.#run(sql, params);
    },
    write: (table, rows, onConflict) => this.#write(table, rows, onConflict),
    // JSON text, unpacked by DuckDB: a LIST parameter is built one native call per value.
    whereIn: (column, values) => ({
      sql: `${column} IN (SELECT unnest(from_json(?, '["VARCHAR"]')))`,
      params: [JSON.stringify(values)],
    }),
    // JSON text of one object per key, unpacked into columns by DuckDB.
    keyRelation: (columns, tuples) => {
      const shape = columns.map((c) => `"${c.name}":"${DUCKDB_KEY_TYPES[c.type]}"`).join(',');
      const objects = tuples.map((t) => Object.fromEntries(columns.map((c, i) => [c.name, t[i]])));
      return {
        sql: `(SELECT unnest(from_json(?, '[{${shape}}]'), recursive := true))`,
        params: [JSON.stringify(objects)],
      };
    },
    mayHold: (tables, ids) => this.#held.mayHold(tables, ids),
    selectIn: (table, columns, column, values) => this.#rowids.select(table, columns, column, values),
    updateIn: (table, assignments, params, column, values) =>
      this.#rowids.update(table, assignments, params, column, values),
    // One process holds the file and runs one transaction at a time: nothing to wait for.
    lock: () => Promise.resolve(),
  };
}
