import { existsSync } from 'node:fs';
import type { Knex } from 'knex';
import { FatalError } from '../errors.js';
import { parseTarget, DEFAULT_TARGET } from './parse-target.js';
import type { SqlDriver } from './sql-driver.js';
import { MissingTargetError } from './missing-target-error.js';
import { createSqlSink, DEFAULT_RETRY_MS, type QueryableSink } from './sql-sink.js';
import { shortDriverMessage, StoreError } from './store-error.js';
import { withStoreErrors } from './store-error-driver.js';
import type { TransientRetryOptions } from './transient-retry-driver.js';
import { withTransientRetries } from './transient-retry-driver.js';

/** The part of a logger (pino's shape) the store uses. */
export interface StoreLogger {
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
   * How long a transaction that met a passing fault of the target (a
   * database restart, a dropped connection, a serialization failure) is run
   * again, whole, before it fails, in seconds; each retry is logged as a warning.
   * @default 60
   */
  retrySeconds?: number;
}

/**
 * Opens and migrates a target: `sqlite:PATH` (parent directories created),
 * `duckdb:PATH`, or `postgres://user@host:port/db[?schema=NAME]`.
 * @default target sqlite:./data/ivsync.sqlite
 */
export async function openSink(target: string = DEFAULT_TARGET, options: OpenSinkOptions = {}): Promise<QueryableSink> {
  const clock = options.clock ?? (() => new Date());
  const parsed = parseTarget(target);
  if (options.existing === true && parsed.kind !== 'postgres' && !existsSync(parsed.path)) {
    throw new MissingTargetError(`${parsed.kind}:${parsed.path}`, 'no-file');
  }
  let driver: SqlDriver;
  let label: string;
  // Drivers load on demand: DuckDB's native library alone is tens of MB that a SQLite run never needs.
  switch (parsed.kind) {
    case 'sqlite': {
      const { SqliteDriver } = await import('./sqlite-driver.js');
      driver = await SqliteDriver.open(parsed.path, { knexLog: knexLog(options.logger) });
      label = `sqlite:${parsed.path}`;
      break;
    }
    case 'duckdb': {
      const { DuckdbDriver } = await import('./duckdb-driver.js');
      const signal = options.waitWhileLocked;
      const onWait = (holder: string): void => options.logger?.info({ target: `duckdb:${parsed.path}`, holder }, 'waiting for another process to close the DuckDB file');
      driver = await DuckdbDriver.open(parsed.path, clock, signal === undefined ? {} : { wait: { signal, onWait } });
      label = `duckdb:${parsed.path}`;
      break;
    }
    case 'postgres': {
      const { PostgresDriver } = await import('./postgres-driver.js');
      driver = PostgresDriver.open({ connectionString: parsed.connectionString, schema: parsed.schema, knexLog: knexLog(options.logger) });
      label = parsed.redacted;
      break;
    }
  }
  const retry: TransientRetryOptions = {
    budgetMs: options.retrySeconds === undefined ? DEFAULT_RETRY_MS : options.retrySeconds * 1000,
    onRetry: (fault) => {
      const fields = { target: label, code: fault.code, attempt: fault.attempt, pauseMs: fault.pauseMs };
      options.logger?.warn(fields, `target unavailable, retrying: ${fault.message}`);
    },
  };
  let migrated = true;
  try {
    // A database that is starting up is waited for here too.
    const opening = withTransientRetries(withStoreErrors(driver), { ...retry, retryRefused: false });
    // Asked before migrate, which would create the schema and the tables.
    if (options.existing === true) migrated = await opening.isMigrated();
    const applied = migrated ? await opening.migrate() : [];
    if (applied.length > 0) options.logger?.info({ target: label, migrations: applied }, 'applied migrations');
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
  return createSqlSink(driver, { clock, retry });
}

/**
 * knex prints to the console by default; its messages go to the logger
 * instead (errors also reach the caller as rejections, so they are not repeated).
 */
function knexLog(logger: StoreLogger | undefined): Knex.Logger {
  const warn = (message: unknown): void => logger?.warn({ component: 'knex' }, String(message));
  return { warn, deprecate: warn, error: () => undefined, debug: () => undefined };
}
