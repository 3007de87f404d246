import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import Database from 'better-sqlite3';
import knexFactory, { type Knex } from 'knex';
import { MIGRATIONS } from '../../migrations/index.js';
import { ExclusiveLock } from './exclusive-lock.js';
import type { SqlDriver, SqlExecutor } from './sql-driver.js';
import { StaticMigrationSource } from './static-migration-source.js';
import { placeholders } from './placeholders.js';
import { columnValue } from './column-value.js';
import { onConflictClause } from './upsert-clause.js';

export interface SqliteDriverOptions {
  /**
   * How long a writer waits for another connection's write lock before failing.
   * @default 10000
   */
  busyTimeoutMs?: number;
  /** Where knex's own messages go. @default knex's console logging */
  knexLog?: Knex.Logger;
}

/** better-sqlite3 cannot bind booleans; SQLite has none and stores 0/1. */
function bindable(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value === undefined ? null : value;
}

/**
 * SQLite through knex (migrations) and, on the hot path, prepared
 * better-sqlite3 statements on knex's own single pooled connection, so there is
 * exactly one connection and it writes from one place at a time.
 */
export class SqliteDriver implements SqlDriver {
  readonly dialect = 'sqlite' as const;
  readonly #knex: Knex;
  readonly #lock = new ExclusiveLock();
  readonly #statements = new WeakMap<Database.Database, Map<string, Database.Statement>>();

  readonly #busyTimeoutMs: number;

  private constructor(knex: Knex, busyTimeoutMs: number) {
    this.#knex = knex;
    this.#busyTimeoutMs = busyTimeoutMs;
  }

  static async open(path: string, options: SqliteDriverOptions = {}): Promise<SqliteDriver> {
    if (path !== ':memory:') await mkdir(dirname(path), { recursive: true });
    const busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: path },
      useNullAsDefault: true,
      ...(options.knexLog ? { log: options.knexLog } : {}),
      pool: {
        min: 1,
        max: 1,
        afterCreate: (conn: Database.Database, done: (err: Error | null, conn: Database.Database) => void) => {
          try {
            // WAL lets readers (an analyst's SQL tool) run while a sync writes.
            conn.pragma('journal_mode = WAL');
            conn.pragma('synchronous = NORMAL');
            // No blocking wait inside SQLite: better-sqlite3 is synchronous, so a
            // busy wait would freeze the event loop, and with it the other
            // connection of this process that holds the lock. The wait for the
            // write lock happens asynchronously in #begin instead.
            conn.pragma('busy_timeout = 0');
            done(null, conn);
          } catch (error) {
            done(error as Error, conn);
          }
        },
      },
    });
    return new SqliteDriver(knex, busyTimeoutMs);
  }

  migrate(): Promise<string[]> {
    return this.#lock.run(async () => {
      const [, applied] = (await this.#knex.migrate.latest({ migrationSource: new StaticMigrationSource(MIGRATIONS) })) as [
        number,
        string[],
      ];
      return applied;
    });
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
    await this.#lock.run(() => this.#knex.destroy());
  }

  #withConnection<T>(work: (db: Database.Database) => Promise<T>): Promise<T> {
    return this.#lock.run(async () => {
      const conn: unknown = await this.#knex.client.acquireConnection();
      if (!(conn instanceof Database)) throw new Error('knex did not hand out a better-sqlite3 connection');
      try {
        return await work(conn);
      } finally {
        await this.#knex.client.releaseConnection(conn);
      }
    });
  }

  async #inTransaction<T>(db: Database.Database, begin: string, work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    await this.#begin(db, begin);
    try {
      const result = await work(this.#executor(db));
      db.exec('COMMIT');
      return result;
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw error;
    }
  }

  /** BEGIN, retried with a growing pause while another connection holds the write lock, up to the busy timeout. */
  async #begin(db: Database.Database, begin: string): Promise<void> {
    const deadline = Date.now() + this.#busyTimeoutMs;
    for (let pause = 2; ; pause = Math.min(pause * 2, 100)) {
      try {
        db.exec(begin);
        return;
      } catch (error) {
        const busy = error instanceof Database.SqliteError && (error.code === 'SQLITE_BUSY' || error.code === 'SQLITE_LOCKED');
        if (!busy || Date.now() >= deadline) throw error;
      }
      await delay(pause);
    }
  }

  #prepare(db: Database.Database, sql: string): Database.Statement {
    let cache = this.#statements.get(db);
    if (!cache) {
      cache = new Map();
      this.#statements.set(db, cache);
    }
    let statement = cache.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  }

  #executor(db: Database.Database): SqlExecutor {
    return {
      all: (sql, params = []) => {
        const rows = this.#prepare(db, sql).all(...params.map(bindable)) as Record<string, unknown>[];
        return Promise.resolve(rows);
      },
      run: (sql, params = []) => Promise.resolve(this.#prepare(db, sql).run(...params.map(bindable)).changes),
      inList: (values) => ({ sql: '(SELECT value FROM json_each(?))', params: [JSON.stringify(values)] }),
      write: (table, rows, onConflict) => {
        const columns = table.columns.map((c) => c.name);
        const statement = this.#prepare(
          db,
          `INSERT INTO ${table.name} (${columns.join(', ')}) VALUES (${placeholders(columns.length)}) ${onConflictClause(table, onConflict)}`,
        );
        for (const row of rows) statement.run(...table.columns.map((c) => bindable(columnValue(c, row[c.name]))));
        return Promise.resolve();
      },
    };
  }
}
