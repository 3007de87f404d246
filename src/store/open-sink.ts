import { existsSync } from 'node:fs';
import type { Knex } from 'knex';
import { MIGRATIONS } from '../../migrations/index.js';
import { FatalError } from '../errors.js';
import { DiskReserve } from './target/disk-reserve.js';
import {
  ExportTargetError,
  ForeignTargetError,
  NewerTargetError,
  ReadOnlyTargetError,
} from './target/foreign-target-error.js';
import type { Migration } from './migration/migration-step.js';
import { MissingTargetError } from './target/missing-target-error.js';
import { parseTarget, DEFAULT_TARGET } from './target/parse-target.js';
import { readOnlyDriver } from './drivers/read-only-driver.js';
import { beforeLoadingDuckdb } from './drivers/duckdb/duckdb-allocator.js';
import type { SqlDriver } from './drivers/sql-driver.js';
import { createSqlSink, DEFAULT_RETRY_MS, type QueryableSink } from './sql-sink.js';
import { shortDriverMessage, StoreError } from './drivers/store-error.js';
import { withStoreErrors } from './drivers/store-error-driver.js';
import { targetKind, type TargetKind } from './target/target-kind.js';
import { withTransientRetries, type TransientRetryOptions } from './drivers/transient-retry-driver.js';

/** The part of a logger (pino's shape) the store uses. */
export interface StoreLogger {
  debug?(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface OpenSinkOptions {
  /**
   * Time for the writes whose Sink method takes none (planWindows, migration bookkeeping).
   * @default () => new Date()
   */
  clock?: () => Date;
  /** Told which migrations were applied, and knex's warnings. @default no logging */
  logger?: StoreLogger;
  /**
   * Open only a target that is there already: a database file that exists, a
   * database or schema that ivsync has migrated. Anything else fails with
   * MissingTargetError, and nothing is created (no file, no directory, no
   * schema). For the commands that only read.
   * @default false
   */
  existing?: boolean;
  /**
   * While another process has a DuckDB file open, wait for it (until `signal`
   * aborts) instead of failing with TargetLockedError. SQLite and Postgres
   * need no wait to open: their writers take turns per transaction.
   * @default fail at once
   */
  waitWhileLocked?: AbortSignal;
  /**
   * Read the target as it is: never migrate it nor create it (as `existing`).
   * An export made by `ivsync export` opens only so (or with `existing`).
   * @default false
   */
  readOnly?: boolean;
  /**
   * Add ivsync's tables to a SQLite or DuckDB file that holds tables of
   * someone else's (an analyst's own database). Without it such a file is
   * refused, and nothing is written into it. An export is never written into:
   * `ivsync export --force` replaces it.
   * @default false
   */
  force?: boolean;
  /**
   * The migrations the target is brought up to, oldest first. The one place
   * the list is chosen: the drivers take it as given.
   * @default MIGRATIONS (migrations/index.ts), every one
   */
  migrations?: readonly Migration[];
  /**
   * How long a transaction that met a passing fault of the target (a
   * database restart, a dropped connection, a serialization failure) is run
   * again, whole, before it fails, in seconds; each retry is logged as a warning.
   * @default 60
   */
  retrySeconds?: number;
  /**
   * Stops the pauses between those retries (SIGINT, SIGTERM): the
   * transaction fails at once with InterruptedError.
   * @default never
   */
  signal?: AbortSignal;
}

/**
 * Opens and migrates a target: `sqlite:PATH` (parent directories created),
 * `duckdb:PATH`, or `postgres://user@host:port/db[?schema=NAME]`.
 * @default target sqlite:./data/ivsync.sqlite
 */
export async function openSink(target: string = DEFAULT_TARGET, options: OpenSinkOptions = {}): Promise<QueryableSink> {
  const clock = options.clock ?? (() => new Date());
  const migrations = options.migrations ?? MIGRATIONS;
  const parsed = parseTarget(target);
  const readOnly = options.readOnly === true;
  const existing = options.existing === true || readOnly;
  const fileExisted = parsed.kind !== 'postgres' && existsSync(parsed.path);
  if (existing && parsed.kind !== 'postgres' && !fileExisted) {
    throw new MissingTargetError(`${parsed.kind}:${parsed.path}`, 'no-file');
  }
  let driver: SqlDriver;
  let label: string;
  // Drivers load on demand: DuckDB's native library alone is tens of MB that a SQLite run never needs.
  switch (parsed.kind) {
    case 'sqlite': {
      const { SqliteDriver } = await import('./drivers/sqlite/sqlite-driver.js');
      driver = await SqliteDriver.open(parsed.path, { knexLog: knexLog(options.logger) });
      label = `sqlite:${parsed.path}`;
      break;
    }
    case 'duckdb': {
      beforeLoadingDuckdb();
      const { DuckdbDriver } = await import('./drivers/duckdb/duckdb-driver.js');
      const signal = options.waitWhileLocked;
      const onWait = (holder: string): void =>
        options.logger?.info(
          { target: `duckdb:${parsed.path}`, holder },
          'waiting for another process to close the DuckDB file',
        );
      driver = await DuckdbDriver.open(parsed.path, clock, signal === undefined ? {} : { wait: { signal, onWait } });
      label = `duckdb:${parsed.path}`;
      break;
    }
    case 'postgres': {
      const { PostgresDriver } = await import('./drivers/postgres/postgres-driver.js');
      driver = PostgresDriver.open({
        connectionString: parsed.connectionString,
        schema: parsed.schema,
        knexLog: knexLog(options.logger),
      });
      label = parsed.redacted;
      break;
    }
  }
  const retry: TransientRetryOptions = {
    budgetMs: options.retrySeconds === undefined ? DEFAULT_RETRY_MS : options.retrySeconds * 1000,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onRetry: (fault) => {
      const fields = { target: label, code: fault.code, attempt: fault.attempt, pauseMs: fault.pauseMs };
      options.logger?.warn(fields, `target unavailable, retrying: ${fault.message}`);
    },
  };
  let migrated = true;
  let kind: TargetKind = 'target';
  let unknown: string[] = [];
  try {
    // A database that is starting up is waited for here too.
    const opening = withTransientRetries(withStoreErrors(driver), { ...retry, retryRefused: false });
    // A file's tables say whose it is before anything is written into it (target-kind.ts).
    if (fileExisted) kind = targetKind(await tableNames(opening));
    // Asked before migrate, which would create the schema and the tables.
    if (existing && kind !== 'export') migrated = await opening.isMigrated();
    const writable = kind === 'target' || kind === 'empty' || (kind === 'foreign' && options.force === true);
    const migrating = migrated && writable && !readOnly;
    // A newer ivsync's target is left as it is (NewerTargetError); a read-only open reads what this one knows.
    if (migrating && (existing || (await opening.isMigrated()))) unknown = await unknownMigrations(opening, migrations);
    const applied = migrating && unknown.length === 0 ? await opening.migrate(migrations) : [];
    // Detail for --verbose: on a new target the whole list would precede every first command's own output.
    if (applied.length > 0) options.logger?.debug?.({ target: label, migrations: applied }, 'applied migrations');
  } catch (error) {
    await driver.close().catch(() => undefined);
    const password = parsed.kind === 'postgres' ? parsed.password : null;
    const message = error instanceof Error ? error.message : String(error);
    const reason = error instanceof StoreError ? error.detail : shortDriverMessage(message);
    // A driver may echo its connection settings; the password must not travel on.
    const safe = password ? reason.split(password).join('***') : reason;
    throw new FatalError('TARGET_UNAVAILABLE', `cannot open target ${label}: ${safe}`);
  }
  if (!migrated) {
    await driver.close();
    throw new MissingTargetError(label, 'no-tables');
  }
  if (unknown.length > 0 && !existing) {
    await driver.close();
    throw new NewerTargetError(label, unknown);
  }
  if (kind === 'export' && !existing) {
    await driver.close();
    throw new ExportTargetError(label);
  }
  if (kind === 'foreign' && options.force !== true && !existing) {
    await driver.close();
    throw new ForeignTargetError(label);
  }
  if (kind === 'export')
    return createSqlSink(
      readOnlyDriver(driver, () => new ExportTargetError(label)),
      { clock, migrations, retry },
    );
  // A command that reads (status, export) reads a newer target as it is; a write it tries is refused as above.
  if (unknown.length > 0)
    return createSqlSink(
      readOnlyDriver(driver, () => new NewerTargetError(label, unknown)),
      { clock, migrations, retry },
    );
  if (readOnly)
    return createSqlSink(
      readOnlyDriver(driver, () => new ReadOnlyTargetError(label)),
      { clock, migrations, retry },
    );
  const reserve = parsed.kind === 'postgres' || parsed.path === ':memory:' ? undefined : DiskReserve.hold(parsed.path);
  return createSqlSink(driver, { clock, migrations, retry, reserve });
}

/** The migrations a target has run that `migrations` does not hold: a newer ivsync's. */
async function unknownMigrations(driver: SqlDriver, migrations: readonly Migration[]): Promise<string[]> {
  const known = new Set(migrations.map((m) => m.name));
  const done = await driver.read((tx) => tx.all('SELECT name FROM knex_migrations ORDER BY id'));
  return done.map((r) => String(r.name)).filter((name) => !known.has(name));
}

/** The tables and views of a SQLite or DuckDB database, read without writing. */
async function tableNames(driver: SqlDriver): Promise<string[]> {
  const sql =
    driver.dialect === 'sqlite'
      ? "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'"
      : "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'main'";
  return (await driver.read((tx) => tx.all(sql))).map((r) => String(r.name));
}

/**
 * knex prints to the console by default; its messages go to the logger
 * instead (errors also reach the caller as rejections, so they are not repeated).
 */
function knexLog(logger: StoreLogger | undefined): Knex.Logger {
  const warn = (message: unknown): void => logger?.warn({ component: 'knex' }, String(message));
  return { warn, deprecate: warn, error: () => undefined, debug: () => undefined };
}
