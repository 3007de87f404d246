import { FatalError, IvsyncError } from '../../errors.js';
import type { Dialect } from '../../schema/dialect.js';

/**
 * What a failed statement says about the rows it wrote:
 * - `row`: the target refuses a value of some row (a character it cannot
 *   hold, a NOT NULL column left empty): that row can never be stored as it
 *   is, and the others can;
 * - `limit`: the statement hit a limit of the target (an index entry too
 *   large, a document nested too deep for its parser, a value too big) or
 *   failed in some way the driver does not pin on a row or on the target:
 *   bisection tells whether one row is at fault (refused-items.ts);
 * - `target`: the target itself failed (connection, disk, lock, server, a
 *   statement that is wrong for every row): the same rows may well be stored
 *   later.
 */
export type StoreFailure = 'row' | 'limit' | 'target';

/**
 * A driver error as it leaves src/store: one short line (no SQL statement, no
 * row, no bound values: knex puts the whole statement with its parameters in
 * `message`) with the driver's own code, and whether the rows or the target
 * are at fault.
 */
export class StoreError extends FatalError {
  readonly failure: StoreFailure;
  /**
   * SQLSTATE (PostgreSQL), result code (SQLite), error type (DuckDB), or a system error code; null when there is none.
   */
  readonly driverCode: string | null;
  readonly dialect: Dialect;
  /** The message without the dialect and code before it. */
  readonly detail: string;

  constructor(dialect: Dialect, failure: StoreFailure, driverCode: string | null, message: string, cause: unknown) {
    const code = driverCode === null ? '' : ` (${driverCode})`;
    const what = failure === 'target' ? `${dialect} failed${code}` : `${dialect} cannot store a value${code}`;
    super(failure === 'target' ? 'TARGET_FAILED' : 'TARGET_REFUSED_ROW', `${what}: ${message}`, { cause });
    this.failure = failure;
    this.driverCode = driverCode;
    this.dialect = dialect;
    this.detail = message;
  }
}

/**
 * The disk that holds the target is full. What was committed stays (a commit
 * is all or nothing, and the checkpoints advance with it), so the same
 * command resumes once there is room: the WAL bound (wal-bound.ts) keeps the
 * room a resume needs near the size of the file.
 */
export class DiskFullError extends StoreError {
  constructor(dialect: Dialect, driverCode: string | null, cause: unknown) {
    super(
      dialect,
      'target',
      driverCode,
      'the disk is full: free space where the target is, then run the same command again (what was committed is kept)',
      cause,
    );
  }
}

/**
 * DuckDB could not get memory from its buffer pool (see duckdb-settings.ts):
 * for a query, or for a checkpoint, which invalidates the database for the
 * rest of the process. The driver bounds what DuckDB keeps of the tables
 * (duckdb-pool-bound.ts), so this is not expected; the line says what to do
 * instead (docs/troubleshooting.md, Known limits).
 */
export class DuckdbPoolFullError extends StoreError {
  constructor(driverCode: string | null, message: string, cause: unknown) {
    const original = /Original error: (.*)$/s.exec(message)?.[1] ?? message;
    super(
      'duckdb',
      'target',
      driverCode,
      `its buffer pool is full (${shortDriverMessage(original)}); sync into SQLite or Postgres and make the ` +
        `DuckDB file with \`ivsync export --to duckdb:\``,
      cause,
    );
  }
}

const DUCKDB_POOL_FULL = /failed to pin block|failed to allocate|could not allocate/i;

/** SQLite's SQLITE_FULL, Node's ENOSPC, or DuckDB's IO Error that quotes the system's message. */
const DISK_FULL_CODES: ReadonlySet<string> = new Set(['SQLITE_FULL', 'ENOSPC']);
const DISK_FULL_MESSAGE = /No space left on device|database or disk is full/i;

/**
 * Whether `error` may lie in a row rather than in the target (see
 * StoreFailure): whether bisection should look for the row. Connection,
 * lock, disk and server faults never do, so a target that is down never
 * turns items into rejected ones.
 */
export function refusesRow(error: unknown): error is StoreError {
  return error instanceof StoreError && error.failure !== 'target';
}

/** Longest driver message kept. */
const MESSAGE_LIMIT = 200;
// eslint-disable-next-line no-control-regex -- the control characters are what it replaces
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/**
 * PostgreSQL data exceptions (class 22: invalid byte sequence 22021,
 * unsupported Unicode escape 22P05, invalid text representation 22P02, …),
 * a NOT NULL or CHECK violation.
 */
function postgresRefusesRow(sqlState: string): boolean {
  return sqlState.startsWith('22') || sqlState === '23502' || sqlState === '23514';
}

/**
 * SQLSTATE classes of the target, not of a row: connection (08), transaction
 * state (25), authorization (28), catalog and schema names (3D, 3F), rollback
 * for a serialization failure or a deadlock (40), a statement wrong for every
 * row or a missing privilege (42), resources such as disk and memory (53),
 * locks and object state (55), operator intervention such as a shutdown
 * (57), system I/O (58), and internal errors (XX). A unique violation
 * (23505) is the target's too: the merge proves keys absent before it
 * inserts, so one means a bug or another writer, never a bad item. Anything
 * else (54000 index row size, 54001 stack depth, …) may be a row's.
 */
const POSTGRES_TARGET_CLASSES: ReadonlySet<string> = new Set([
  '08',
  '25',
  '28',
  '3D',
  '3F',
  '40',
  '42',
  '53',
  '55',
  '57',
  '58',
  'XX',
]);

function postgresFailure(sqlState: string): StoreFailure {
  if (postgresRefusesRow(sqlState)) return 'row';
  if (sqlState === '23505' || POSTGRES_TARGET_CLASSES.has(sqlState.slice(0, 2))) return 'target';
  return 'limit';
}

const SQLITE_ROW_CODES: ReadonlySet<string> = new Set([
  'SQLITE_TOOBIG',
  'SQLITE_MISMATCH',
  'SQLITE_CONSTRAINT_NOTNULL',
  'SQLITE_CONSTRAINT_CHECK',
]);

/**
 * SQLite's generic SQLITE_ERROR covers both a statement wrong for every row
 * (no such table or column, a syntax error) and a row's value its functions
 * cannot read (malformed JSON, JSON nested too deep): the first is told by
 * its message. Its other codes (busy, locked, I/O, read-only, corrupt, out
 * of memory, a key stored twice) are the target's.
 */
const SQLITE_STATEMENT = /^(?:no such (?:table|column|function)|.*syntax error|.*has no column named)/;

function sqliteFailure(code: string, message: string): StoreFailure {
  if (SQLITE_ROW_CODES.has(code)) return 'row';
  if (code === 'SQLITE_ERROR' && !SQLITE_STATEMENT.test(message)) return 'limit';
  return 'target';
}

/**
 * DuckDB names its error type at the start of the message (`Conversion
 * Error: …`), after the prefix of the call that failed (`Failed to append:
 * …`); the Appender's constraint errors name no type.
 */
const DUCKDB_ERROR =
  /^(?:Failed to [a-z ]+: )?(?:([A-Z][A-Za-z]*(?: [A-Za-z]+)* Error): |(?=(?:NOT NULL|CHECK) constraint failed))/;
const DUCKDB_ROW_TYPES: ReadonlySet<string> = new Set([
  'Conversion Error',
  'Invalid Input Error',
  'Out of Range Error',
]);
const DUCKDB_ROW_CONSTRAINT = /\b(?:NOT NULL|CHECK) constraint failed\b/;
/**
 * DuckDB's error types of the target: its file and connection, a write
 * conflict, memory, an interrupt, its own faults, and a statement wrong for
 * every row (catalog, binder, parser); a key stored twice (Constraint Error)
 * as for the other dialects. Any other type may be a row's.
 */
const DUCKDB_TARGET_TYPES: ReadonlySet<string> = new Set([
  'IO Error',
  'Connection Error',
  'Transaction Error',
  'TransactionContext Error',
  'Out of Memory Error',
  'Interrupt Error',
  'Fatal Error',
  'Internal Error',
  'Permission Error',
  'Catalog Error',
  'Binder Error',
  'Parser Error',
  'Dependency Error',
  'Constraint Error',
]);

function duckdbFailure(type: string, message: string): StoreFailure {
  if (DUCKDB_ROW_TYPES.has(type) || DUCKDB_ROW_CONSTRAINT.test(message)) return 'row';
  return DUCKDB_TARGET_TYPES.has(type) ? 'target' : 'limit';
}

/** Node's codes for a connection that could not be made or was lost. */
const CONNECTION_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * pg's own words, without a code, for a connection the server or the network
 * closed (knex may put the statement it was running, often ROLLBACK, first).
 */
export const CONNECTION_LOST =
  /Connection terminated|connection error and is not queryable|Connection ended unexpectedly|terminating connection/i;

interface ErrorShape {
  name?: unknown;
  code?: unknown;
  severity?: unknown;
  message?: unknown;
}

/**
 * `error` as a StoreError when it comes from a driver (PostgreSQL through
 * knex and pg, better-sqlite3, DuckDB), else unchanged: ivsync's own errors
 * and bugs keep their type and stack.
 */
export function toStoreError(error: unknown, dialect: Dialect): unknown {
  if (error instanceof IvsyncError || typeof error !== 'object' || error === null) return error;
  const shape = error as ErrorShape;
  const message = typeof shape.message === 'string' ? shape.message : '';
  const code = typeof shape.code === 'string' ? shape.code : null;
  if ((code !== null && DISK_FULL_CODES.has(code)) || (code === null && DISK_FULL_MESSAGE.test(message))) {
    return new DiskFullError(dialect, code ?? (dialect === 'duckdb' ? 'IO Error' : null), error);
  }
  if (code !== null && typeof shape.severity === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
    // A server error reached through knex, which puts the statement first; one
    // met while connecting (57P03 "the database system is starting up") has none.
    const statementFirst = message.includes(' - ');
    return new StoreError(dialect, postgresFailure(code), code, shortDriverMessage(message, statementFirst), error);
  }
  if (code !== null && code.startsWith('SQLITE_')) {
    return new StoreError(dialect, sqliteFailure(code, message), code, shortDriverMessage(message), error);
  }
  if (code !== null && CONNECTION_CODES.has(code))
    return new StoreError(dialect, 'target', code, shortDriverMessage(message), error);
  if (shape.name === 'KnexTimeoutError' || CONNECTION_LOST.test(message)) {
    return new StoreError(dialect, 'target', null, shortDriverMessage(message), error);
  }
  if (dialect === 'duckdb') {
    const match = DUCKDB_ERROR.exec(message);
    if (match !== null) {
      const type = match[1] ?? 'Constraint Error';
      if (DUCKDB_POOL_FULL.test(message)) return new DuckdbPoolFullError(type, message, error);
      return new StoreError(dialect, duckdbFailure(type, message), type, shortDriverMessage(message), error);
    }
  }
  return error;
}

/** Where a statement ends and knex's ` - ` before the driver's own message begins. */
const SQL_START = /^\s*(?:select|insert|update|delete|with|create|alter|drop|begin|commit|rollback|set|lock|copy)\b/i;

/**
 * The driver's message, one short line: knex's copy of the statement (`SQL -
 * message`) cut off, DuckDB's quote of the input value and any line after
 * the first dropped, control characters blanked, at most MESSAGE_LIMIT
 * characters. `statementFirst` says the message surely starts with a
 * statement; else one is recognized by its first word.
 */
export function shortDriverMessage(message: string, statementFirst = SQL_START.test(message)): string {
  let text = message;
  if (statementFirst) {
    const at = text.lastIndexOf(' - ');
    text = at === -1 ? 'a statement failed' : text.slice(at + 3);
  }
  text = text.split(/\r?\n/, 1)[0] ?? '';
  text = text.replace(/\s+Input: [\s\S]*$/, '');
  text = text.replace(CONTROL_CHARACTERS, ' ').toWellFormed().trim();
  return text.length > MESSAGE_LIMIT ? `${text.slice(0, MESSAGE_LIMIT - 1)}…` : text;
}
