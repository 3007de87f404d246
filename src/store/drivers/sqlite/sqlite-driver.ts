import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import Database from 'better-sqlite3';
import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import PQueue from 'p-queue';
import { BackgroundCheckpointer, truncateWal, walPastBound } from './sqlite-checkpointer.js';
import { SqliteReadAhead } from './sqlite-read-ahead.js';
import { WAL_FLOOR_BYTES } from '../wal-bound.js';
import { unsupportedNode, UnsupportedNodeError } from './node-support.js';
import type { SqliteDriverOptions } from './sqlite-driver-options.js';
import type { TableDef } from '../../../schema/schema.js';
import type { Migration } from '../../migration/migration-step.js';
import {
  EACH_CHUNK,
  type KeysetRead,
  type OnConflict,
  type Row,
  type SqlDriver,
  type SqlExecutor,
} from '../sql-driver.js';
import { applyWithKnex, hasSessionTriggers, isBusy, migrationsUpToDate } from './sqlite-migrations.js';
import { baselineFits, createFromBaseline } from './sqlite-new-target.js';
import { columnValue } from '../column-value.js';
import { bindable, insertSql, rowsPerStatement } from './sqlite-insert.js';

export type { SqliteDriverOptions } from './sqlite-driver-options.js';

/**
 * Page size of a new database file: SQLite's own default, 4 KiB. Once a
 * history outgrows the page cache, a backfill's cost is the index pages it
 * touches: each session lands on a random leaf of every index on a random key
 * (`service_id`, `customer_item_id`, the child tables' keys), and each page
 * touched is read, written to the WAL and copied back into the file whole. A
 * backfill of 1M sessions wrote 30 GB at 4 KiB against 73 GB at 16 KiB, and
 * went at 8,278 items/s against 6,966 (docs/benchmarks.md). A target keeps
 * the page size it was made with: in WAL mode SQLite cannot change it.
 */
const PAGE_SIZE = 4_096;

/**
 * Rows a write transaction must have written for its commit to be
 * checkpointed in the background: a group of pages, not a webhook delivery,
 * whose small commits SQLite's autocheckpoint serves better.
 */
const BULK_ROWS = 1000;

/**
 * Prepared statements a connection keeps: the fixed texts (about 20) and most
 * INSERT shapes by table and row count (about 190 in a 40-account backfill);
 * one dropped is prepared again when met (60 times in that backfill).
 */
const STATEMENT_CACHE_SIZE = 200;

/** The connection settings, for the driver's own connection and for knex's while it migrates. */
function configure(conn: Database.Database, cacheSizeKb: number, autocheckpointBytes: number): void {
  // Only a new, empty database takes it; an existing one keeps its own.
  conn.pragma(`page_size = ${PAGE_SIZE}`);
  const pageSize = conn.pragma('page_size', { simple: true }) as number;
  const autocheckpoint = Math.max(1, Math.round(autocheckpointBytes / pageSize));
  // WAL lets readers (an analyst's SQL tool) run while a sync writes.
  conn.pragma('journal_mode = WAL');
  conn.pragma('synchronous = NORMAL');
  // Negative: a size in KiB rather than in pages.
  conn.pragma(`cache_size = ${-Math.abs(Math.round(cacheSizeKb))}`);
  conn.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
  // When the WAL restarts, its file is cut back to this size instead of keeping its largest.
  conn.pragma(`journal_size_limit = ${WAL_FLOOR_BYTES}`);
  // No blocking wait inside SQLite: better-sqlite3 is synchronous, so a
  // busy wait would freeze the event loop, and with it the other
  // connection of this process that holds the lock. The wait for the
  // write lock happens asynchronously in #begin instead.
  conn.pragma('busy_timeout = 0');
}

/**
 * SQLite through one better-sqlite3 connection of its own, opened on first
 * use, with prepared statements on the hot path; it writes from one place at
 * a time. knex is loaded only to apply migrations (its schema builder renders
 * their steps, knex-ddl.ts), on a connection of its own that is closed again
 * when they are applied: a target that is up to date never loads it, which is
 * most of what a short command such as `status` spent starting.
 */
export class SqliteDriver implements SqlDriver {
  readonly dialect = 'sqlite' as const;
  // One task at a time, in call order: the crawler and the receiver share the one connection and a
  // transaction spans several awaits, so two must never interleave. A failed task fails its caller only.
  readonly #lock = new PQueue({ concurrency: 1 });
  /**
   * Prepared statements of the connection, by key (SQL text, or a name that no SQL text starts with), the most
   * recently used kept. SQLite holds each prepared program, about 70 MB a thousand: with every one kept, some 470
   * were left after a 40-account backfill of 100,000 sessions, and a daemon's count grew for as long as it ran. Most
   * were texts new at every commit (a commit group's read of its windows and its scan for unseen sessions, each a
   * UNION ALL until they joined a relation of keys); an INSERT's text still varies with its table and row count.
   */
  readonly #statements = new LRUCache<string, Database.Statement>({ max: STATEMENT_CACHE_SIZE });

  readonly #busyTimeoutMs: number;
  readonly #configure: (conn: Database.Database) => void;
  readonly #knexLog: Knex.Logger | undefined;
  /** The database file, or `:memory:`. */
  readonly #filename: string;
  /** Opened by the first task that needs it, as a pool opens its first connection. */
  #db: Database.Database | null = null;
  #closed = false;

  /** The database file; null in memory. */
  readonly #path: string | null;
  /** The database file, while bulk commits are checkpointed in the background. */
  #background: string | null;
  #checkpointer: BackgroundCheckpointer | null = null;
  /** The reader of keysetChunks, started on first use. */
  #readAhead: SqliteReadAhead | null = null;
  readonly keysetChunks?: (read: KeysetRead) => AsyncIterable<unknown[][]>;
  /** SqlExecutor.childrenFollowSessions: whether the session triggers are there; null until a transaction looks. */
  #childrenFollow: boolean | null = null;
  /** Rows written by the transaction under way. */
  #rowsWritten = 0;

  private constructor(
    filename: string,
    options: Required<Pick<SqliteDriverOptions, 'busyTimeoutMs'>> & {
      configure: (conn: Database.Database) => void;
      knexLog: Knex.Logger | undefined;
      background: boolean;
    },
  ) {
    this.#filename = filename;
    this.#path = filename === ':memory:' ? null : filename;
    if (this.#path !== null) {
      const path = this.#path;
      this.keysetChunks = (read) => this.#keysetChunks(path, read);
    }
    this.#busyTimeoutMs = options.busyTimeoutMs;
    this.#configure = options.configure;
    this.#knexLog = options.knexLog;
    this.#background = options.background ? filename : null;
  }

  static async open(path: string, options: SqliteDriverOptions = {}): Promise<SqliteDriver> {
    const unsupported = unsupportedNode(options.nodeVersions ?? process.versions);
    if (unsupported !== null) throw new UnsupportedNodeError(unsupported);
    if (path !== ':memory:') await mkdir(dirname(path), { recursive: true });
    const cacheSizeKb = options.cacheSizeKb ?? 8_192;
    const autocheckpointBytes = options.walAutocheckpointBytes ?? 64 * 1024 * 1024;
    return new SqliteDriver(path, {
      busyTimeoutMs: options.busyTimeoutMs ?? 10_000,
      configure: (conn) => configure(conn, cacheSizeKb, autocheckpointBytes),
      knexLog: options.knexLog,
      background: path !== ':memory:' && (options.checkpoint ?? 'background') === 'background',
    });
  }

  migrate(migrations: readonly Migration[]): Promise<string[]> {
    return this.#lock.add(async () => {
      const applied = await this.#migrate(migrations);
      this.#childrenFollow = null;
      return applied;
    });
  }

  async #migrate(migrations: readonly Migration[]): Promise<string[]> {
    // Reading the list needs no write lock: a target that is up to date opens
    // while another process (a backfill, a daemon) is writing to it.
    const db = this.#connection();
    if (migrationsUpToDate(db, migrations)) return [];
    // A new, empty file takes the schema the steps leave at once (sqlite-new-target.ts); knex applies the rest.
    if (baselineFits(migrations)) {
      const made = await this.#inTransaction(db, 'BEGIN IMMEDIATE', async () => createFromBaseline(db, Date.now()));
      if (made !== null) return made;
    }
    return applyWithKnex(db, migrations, this.#knexLog, this.#busyTimeoutMs);
  }

  /** How many prepared statements the connection keeps now (at most STATEMENT_CACHE_SIZE). */
  get preparedStatements(): number {
    return this.#statements.size;
  }

  async isMigrated(): Promise<boolean> {
    const found = await this.read((tx) =>
      tx.all("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'knex_migrations'"),
    );
    return found.length > 0;
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    // IMMEDIATE takes the write lock up front, so the reads that decide a merge
    // or a lease cannot be overtaken by another process's write.
    return this.#withConnection((db) => this.#inTransaction(db, 'BEGIN IMMEDIATE', work));
  }

  read<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#withConnection((db) => this.#inTransaction(db, 'BEGIN', work));
  }

  async close(): Promise<void> {
    await this.#lock.add(async () => {
      // The worker's connection goes first, so that closing the last one folds the WAL in and removes it.
      await this.#checkpointer?.close();
      this.#checkpointer = null;
      await this.#readAhead?.close();
      this.#readAhead = null;
      this.#closed = true;
      this.#db?.close();
      this.#db = null;
    });
  }

  /** SqlDriver.keysetChunks, on a database file (one in memory has no file another connection could read). */
  #keysetChunks(path: string, read: KeysetRead): AsyncIterable<unknown[][]> {
    // The file exists once this connection has opened it.
    this.#connection();
    this.#readAhead ??= new SqliteReadAhead(path);
    return this.#readAhead.chunks(read);
  }

  #withConnection<T>(work: (db: Database.Database) => Promise<T>): Promise<T> {
    return this.#lock.add(() => work(this.#connection()));
  }

  /** The connection, opened and configured on first use; a database that cannot be opened fails the task. */
  #connection(): Database.Database {
    if (this.#closed) throw new Error('the SQLite target is closed');
    if (this.#db === null) {
      const db = new Database(this.#filename);
      try {
        this.#configure(db);
      } catch (error) {
        db.close();
        throw error;
      }
      this.#db = db;
    }
    return this.#db;
  }

  async #inTransaction<T>(db: Database.Database, begin: string, work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    await this.#begin(db, begin);
    this.#rowsWritten = 0;
    try {
      const result = await work(this.#executor(db));
      this.#prepare(db, 'COMMIT').run();
      if (begin === 'BEGIN IMMEDIATE') await this.#afterWrite(db);
      return result;
    } catch (error) {
      if (db.inTransaction) this.#prepare(db, 'ROLLBACK').run();
      throw error;
    }
  }

  /**
   * After a write commit (still inside the lock, so no write starts meanwhile): a WAL past its bound is emptied
   * at once (see walPastBound), by the worker where there is one, so that the event loop goes on fetching and
   * normalizing during the copy; a bulk commit is checkpointed by the worker, started on the first, when the file
   * surely exists.
   */
  async #afterWrite(db: Database.Database): Promise<void> {
    if (this.#background !== null && this.#rowsWritten >= BULK_ROWS) {
      try {
        this.#checkpointer ??= BackgroundCheckpointer.start(this.#background);
      } catch {
        // The commit stands either way; SQLite's autocheckpoint goes on folding the WAL in.
        this.#background = null;
      }
    }
    if (this.#path !== null && walPastBound(this.#path, this.#rowsWritten)) {
      if (!(await this.#checkpointer?.truncate())) truncateWal(db);
    } else if (this.#rowsWritten >= BULK_ROWS) {
      this.#checkpointer?.committed();
    }
  }

  /** BEGIN, retried with a growing pause while another connection holds the write lock, up to the busy timeout. */
  async #begin(db: Database.Database, begin: string): Promise<void> {
    const deadline = Date.now() + this.#busyTimeoutMs;
    for (let pause = 2; ; pause = Math.min(pause * 2, 100)) {
      try {
        // Prepared once per connection, as every statement here: exec compiles its text on each call.
        this.#prepare(db, begin).run();
        return;
      } catch (error) {
        if (!isBusy(error) || Date.now() >= deadline) throw error;
      }
      await delay(pause);
    }
  }

  #prepare(db: Database.Database, sql: string): Database.Statement {
    return this.#cached(db, sql, () => sql);
  }

  /**
   * The prepared INSERT of `rows` rows, found by a short key: its SQL text is
   * kilobytes for a session table, too long to build and hash per statement.
   */
  #insertStatement(db: Database.Database, table: TableDef, rows: number, onConflict: OnConflict): Database.Statement {
    return this.#cached(db, `\u0000insert ${table.name} ${rows} ${onConflict}`, () =>
      insertSql(table, rows, onConflict),
    );
  }

  /** The connection's statements, by `key` (SQL text, or a name no SQL text starts with), prepared when not kept. */
  #cached(db: Database.Database, key: string, sql: () => string): Database.Statement {
    let statement = this.#statements.get(key);
    if (statement === undefined) {
      statement = db.prepare(sql());
      this.#statements.set(key, statement);
    }
    return statement;
  }

  /**
   * Multi-row INSERTs (rowsPerStatement, sqlite-insert.ts): for the narrow child
   * rows, a statement per row spent about a third of its time on the statement
   * itself rather than the write. One prepared statement per row count, so a
   * batch uses at most two shapes.
   */
  #write(db: Database.Database, table: TableDef, rows: readonly Row[], onConflict: OnConflict): void {
    this.#rowsWritten += rows.length;
    const columns = table.columns;
    const width = columns.length;
    const perStatement = rowsPerStatement(width);
    for (let start = 0; start < rows.length; start += perStatement) {
      const count = Math.min(perStatement, rows.length - start);
      const statement = this.#insertStatement(db, table, count, onConflict);
      const params = new Array<unknown>(count * width);
      let at = 0;
      for (let r = start; r < start + count; r++) {
        const row = rows[r]!;
        for (let c = 0; c < width; c++) {
          const column = columns[c]!;
          params[at++] = bindable(columnValue(column, row[column.name]));
        }
      }
      // As arguments rather than one array: better-sqlite3 reads call arguments
      // directly, and an array element by element through the V8 API, which
      // cost a third of the binding time of a session row.
      statement.run(...params);
    }
  }

  #executor(db: Database.Database): SqlExecutor {
    return {
      childrenFollowSessions: (this.#childrenFollow ??= hasSessionTriggers(db)),
      all: (sql, params = []) => {
        const rows = this.#prepare(db, sql).all(...params.map(bindable)) as Record<string, unknown>[];
        return Promise.resolve(rows);
      },
      each: (sql, params, visit) => {
        let chunk: Record<string, unknown>[] = [];
        for (const row of this.#prepare(db, sql).iterate(...params.map(bindable)) as IterableIterator<
          Record<string, unknown>
        >) {
          chunk.push(row);
          if (chunk.length === EACH_CHUNK) {
            visit(chunk);
            chunk = [];
          }
        }
        if (chunk.length > 0) visit(chunk);
        return Promise.resolve();
      },
      run: (sql, params = []) => Promise.resolve(this.#prepare(db, sql).run(...params.map(bindable)).changes),
      whereIn: (column, values) => ({
        sql: `${column} IN (SELECT value FROM json_each(?))`,
        params: [JSON.stringify(values)],
      }),
      keyRelation: (columns, tuples) => ({
        sql: `(SELECT ${columns.map((c, i) => `value ->> ${i} AS ${c.name}`).join(', ')} FROM json_each(?))`,
        params: [JSON.stringify(tuples)],
      }),
      write: (table, rows, onConflict) => {
        this.#write(db, table, rows, onConflict);
        return Promise.resolve();
      },
      // BEGIN IMMEDIATE: no other write transaction runs meanwhile, in any process.
      lock: () => Promise.resolve(),
    };
  }
}
