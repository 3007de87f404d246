import type { Dialect } from '../../schema/dialect.js';
import type { Migration } from '../migration/migration-step.js';
import type { TableDef } from '../../schema/schema.js';

/** What a write does when a row's primary key is already stored (SqlExecutor.write). */
export type OnConflict = 'replace' | 'ignore' | 'fail';

/** A column of a relation of keys (SqlExecutor.keyRelation). */
export interface KeyColumn {
  name: string;
  /** A timestamp goes as ISO 8601 text and compares with a `timestamp` column as an instant. */
  type: 'text' | 'integer' | 'timestamp';
}

export type KeyValue = string | number;

/** A row as the store writes it: column name to value (JS boolean, number, string or null). */
export type Row = Readonly<Record<string, unknown>>;

/**
 * What one dialect must provide so that the shared sink (sql-sink.ts) can run
 * on it. SQL handed to `all` and `run` is portable and uses `?` placeholders.
 *
 * Values read back are what the dialect gives, with integers always as JS
 * numbers: booleans are 0/1 in SQLite and true/false elsewhere. JSON columns
 * are the text stored, in every dialect. Times are one text in every dialect,
 * whatever the column type: `timestamp` columns (and any other time a query
 * returns) read as ISO 8601 UTC with six fraction digits,
 * `2026-01-02T03:04:05.123456Z`, and dates as `YYYY-MM-DD`; they are written
 * and compared (`last_synced_at < ?`) as that text too, which each dialect
 * casts to the column's type.
 */
export interface SqlExecutor {
  all(sql: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  /**
   * The rows of one query handed to `visit` a chunk at a time, so that memory
   * holds a chunk and not the whole result (a PostgreSQL cursor,
   * better-sqlite3's iterator, DuckDB's streamed chunks). `visit` must not use
   * the executor: the query is still open.
   */
  each(sql: string, params: readonly unknown[], visit: (rows: Record<string, unknown>[]) => void): Promise<void>;
  /** Returns the number of rows the statement changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /**
   * Writes `rows` (each carrying every column of `table`; the caller has made
   * primary keys unique) in as few statements as the dialect allows. On a
   * primary key conflict, `replace` overwrites the stored row and `ignore`
   * keeps it. `fail` is for rows the caller has proven absent inside this
   * transaction: no conflict handling at all, so a dialect may take its
   * fastest path (DuckDB appends straight into the table), and a conflict
   * fails the transaction.
   */
  write(table: TableDef, rows: readonly Row[], onConflict: OnConflict): Promise<void>;
  /**
   * The condition that `column` is one of `values`, with the list as one bound
   * parameter: SQL like `service_id IN (SELECT value FROM json_each(?))` and its
   * params. One parameter instead of one per value keeps large key lists fast
   * and under parameter limits; each dialect words it so that its planner
   * looks the values up in the column's index (PostgreSQL estimates
   * `= ANY(array)` from the column's statistics, but an `IN` over a subquery
   * as a generic 200 rows and scans the whole table to hash-join it).
   */
  whereIn(column: string, values: readonly string[]): { sql: string; params: unknown[] };
  /**
   * `tuples` as a relation with `columns`, to join on: a subquery like
   * `(SELECT value ->> 0 AS account, … FROM json_each(?))` and its params.
   * Any number of compound keys go as one parameter (or one per column), in
   * a statement text that does not change with their number: a text that
   * does is parsed and planned anew every time (a DuckDB read of 60 windows
   * took 35 ms as a UNION ALL per account and resource, 3.7 ms joined).
   */
  keyRelation(
    columns: readonly KeyColumn[],
    tuples: ReadonlyArray<readonly KeyValue[]>,
  ): { sql: string; params: unknown[] };
  /**
   * True where the target's triggers delete a session's child rows when the
   * last session row of its id goes (session-triggers.ts): a session new to
   * its table then has child rows only where the other session table holds
   * its id. Absent, a new session's id may have child rows whatever the
   * session tables hold.
   */
  readonly childrenFollowSessions?: boolean;
  /**
   * Of `ids`, those that may have rows in the session tables (`sessions`), in
   * their child tables (`children`) or in session_versions (`versions`);
   * every other one certainly has none.
   * A dialect whose tables have no index on service_id (DuckDB) answers from
   * what it knows it holds, so that a commit of new sessions reads no table;
   * absent, every id may.
   */
  mayHold?(tables: 'sessions' | 'children' | 'versions', ids: readonly string[]): Promise<string[]>;
  /**
   * `columns` of the rows of `table` whose `column` is one of `values`, where
   * a dialect reads them otherwise than `SELECT … WHERE whereIn`: DuckDB's
   * keyless tables find the rows and their rowids by `column` alone first
   * (duckdb-rowids.ts). Absent, the plain query (selectWhereIn).
   */
  selectIn?(
    table: string,
    columns: readonly string[],
    column: string,
    values: readonly string[],
  ): Promise<Record<string, unknown>[]>;
  /**
   * `UPDATE table SET <assignments>` (with `params`) of the rows whose
   * `column` is one of `values`, where a dialect finds them otherwise than by
   * whereIn: DuckDB by the rowids `selectIn` read in this transaction.
   * Absent, the plain statement (updateWhereIn).
   */
  updateIn?(
    table: string,
    assignments: string,
    params: readonly unknown[],
    column: string,
    values: readonly string[],
  ): Promise<number>;
  /**
   * Holds `keys` (of each scope, LockScope) until the transaction ends: a
   * write transaction that locks one of the same keys waits for this one,
   * and one that locks none of them does not. Call it before reading what
   * the transaction decides on; under PostgreSQL's READ COMMITTED each later
   * statement then sees what the previous holder committed. Where the
   * dialect never runs two write transactions at once (SQLite, DuckDB) it
   * does nothing. Lock all a transaction knows it will decide on in its
   * first call: keys locked again later cost nothing, and new ones taken
   * later may meet a deadlock, which the server finds and the transaction
   * is run again for (transient-retry-driver.ts), after a pause.
   */
  lock(keys: LockKeys): Promise<void>;
}

/**
 * What the stores lock: an account's crawl bookkeeping (its sync_windows
 * rows), the sessions a transaction merges or marks missing (by service_id
 * alone, as the child tables are keyed, whatever the resource or the account
 * that saw them), a webhook delivery's id, a mirror table of one account.
 */
export type LockScope = 'account' | 'session' | 'delivery' | 'mirror';
export type LockKeys = Partial<Record<LockScope, readonly string[]>>;

/** Statements with their parameters as one `UNION ALL` statement: one round trip for reads of several tables. */
export function unionAll(parts: readonly { sql: string; params: readonly unknown[] }[]): {
  sql: string;
  params: unknown[];
} {
  return { sql: parts.map((p) => p.sql).join(' UNION ALL '), params: parts.flatMap((p) => p.params) };
}

/** `columns` of the rows of `table` whose `column` is one of `values`, the dialect's way (SqlExecutor.selectIn). */
export function selectWhereIn(
  tx: Pick<SqlExecutor, 'all' | 'whereIn' | 'selectIn'>,
  table: string,
  columns: readonly string[],
  column: string,
  values: readonly string[],
): Promise<Record<string, unknown>[]> {
  if (tx.selectIn) return tx.selectIn(table, columns, column, values);
  if (values.length === 0) return Promise.resolve([]);
  const list = tx.whereIn(column, values);
  return tx.all(`SELECT ${columns.join(', ')} FROM ${table} WHERE ${list.sql}`, list.params);
}

/** `UPDATE table SET <assignments>` of the rows whose `column` is one of `values`, the dialect's way (updateIn). */
export function updateWhereIn(
  tx: Pick<SqlExecutor, 'run' | 'whereIn' | 'updateIn'>,
  table: string,
  assignments: string,
  params: readonly unknown[],
  column: string,
  values: readonly string[],
): Promise<number> {
  if (tx.updateIn) return tx.updateIn(table, assignments, params, column, values);
  if (values.length === 0) return Promise.resolve(0);
  const list = tx.whereIn(column, values);
  return tx.run(`UPDATE ${table} SET ${assignments} WHERE ${list.sql}`, [...params, ...list.params]);
}

/** Rows `SqlExecutor.each` hands over at a time, where the dialect lets it choose. */
export const EACH_CHUNK = 2048;

export interface SqlDriver {
  readonly dialect: Dialect;
  /**
   * Runs `work` in one write transaction, committed when it resolves and rolled
   * back when it throws. On SQLite (BEGIN IMMEDIATE) and DuckDB (a single
   * writer) write transactions of one target never overlap, even across
   * processes. On PostgreSQL they do, so that the processes that share a
   * schema write side by side: a single statement is atomic on its own (an
   * upsert, a conditional UPDATE, `SET n = n + ?`), but a read-decide-write
   * across statements is race-free only over the keys it locked first
   * (`SqlExecutor.lock`), and every writer of those rows must lock them too.
   */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** Runs `work` on a consistent read. */
  read<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** Applies those of `migrations` (oldest first) that the target has not run; returns the names applied. */
  migrate(migrations: readonly Migration[]): Promise<string[]>;
  /** Whether the target holds ivsync's migration bookkeeping (knex_migrations), read without creating anything. */
  isMigrated(): Promise<boolean>;
  /**
   * A table's rows as CSV text, a piece at a time, every piece as of one
   * instant (PostgreSQL 14 or later: COPY over ranges of the table's pages,
   * in the order its rows lie). False, with nothing read, where the target
   * cannot. Absent on the other dialects.
   */
  copyCsv?(copy: CsvCopy): Promise<boolean>;
  /**
   * The rows of a keyset-paged read, as arrays in the order of its columns, a
   * chunk at a time, each chunk its own read, the next read on another thread
   * while the caller takes this one. Present on SQLite file targets only.
   */
  keysetChunks?(read: KeysetRead): AsyncIterable<unknown[][]>;
  close(): Promise<void>;
}

/** A read in key order a chunk at a time (keyset paging), as SqlDriver.keysetChunks runs it. */
export interface KeysetRead {
  /** The first chunk's statement. */
  first: string;
  /** Each next chunk's, with a `?` per key column: the key of the last row read. */
  next: string;
  /** Where the key's columns are in a row, in the order of `next`'s placeholders. */
  keyAt: readonly number[];
  /** The LIMIT of both statements: a shorter chunk is the last. */
  chunkRows: number;
}

/** What SqlDriver.copyCsv reads, and where each piece goes. */
export interface CsvCopy {
  table: string;
  columns: readonly string[];
  /** About how many bytes of the table's pages each piece reads. */
  pieceBytes: number;
  /** The writer of the next piece, asked for once per piece, in order. */
  piece(): CsvPiece;
}

/**
 * One piece's CSV (RFC 4180: a NULL is an empty field, an empty text a
 * quoted one, `""`; a value may hold a line break inside its quotes).
 */
export interface CsvPiece {
  /** Takes the piece's next bytes (a row may span two chunks); resolves when more may come. */
  write(chunk: Buffer): Promise<void>;
  /** The piece is whole; resolves when the next may be read. */
  end(): Promise<void>;
}
