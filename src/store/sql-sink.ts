import { isoFromMicros } from '../normalize/time.js';
import { SqlDeliveryStore } from './deliveries/delivery-store.js';
import type { DiskReserve } from './target/disk-reserve.js';
import { SqlLeaseStore } from './leases/lease-store.js';
import { SqlPageStore } from './pages/page-store.js';
import { SqlRefreshStore } from './refresh/refresh-store.js';
import { SqlRunLog } from './runs/run-log.js';
import { SqlSessionStore } from './pages/session-store.js';
import type { Sink } from './sink.js';
import type { Migration } from './migration/migration-step.js';
import type { CsvCopy, KeysetRead, SqlDriver } from './drivers/sql-driver.js';
import { SqlStatusSource } from './runs/status-report.js';
import { SqlVerifyStore } from './verify/verify-store.js';
import { withStoreErrors } from './drivers/store-error-driver.js';
import { withTransientRetries, type TransientRetryOptions } from './drivers/transient-retry-driver.js';
import { SqlWindowStore } from './windows/window-store.js';

export interface SqlSinkOptions {
  /** Used where a method takes no time of its own (planWindows). */
  clock: () => Date;
  /** What `migrate` applies (openSink passes migrations/index.ts's list). */
  migrations: readonly Migration[];
  /** How transactions that meet a passing fault of the target are retried. @default 60 s, silently */
  retry?: TransientRetryOptions;
  /** Room on the target's disk for the end of a run when the disk fills up (file targets written to). */
  reserve?: DiskReserve | undefined;
}

/** Retry budget of a transaction that meets a passing fault of the target (store.retrySeconds). */
export const DEFAULT_RETRY_MS = 60_000;

/**
 * A Sink that also answers read-only SQL (the views, the tables): what an
 * export, a report or a test reads back. Values come back as the dialect gives
 * them (see sql-driver.ts); src/store/row-reader.ts types them.
 */
export interface QueryableSink extends Sink {
  query(sql: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  /**
   * The rows of one query read in one transaction and handed to `visit` a
   * chunk at a time, where the target streams them without holding the
   * process (a PostgreSQL cursor): present on Postgres targets only. A
   * SQLite iterator would hold the event loop for the whole query, and
   * DuckDB files are read by DuckDB itself (export-db.ts). A passing fault
   * of the target fails it, whatever rows it has handed over.
   */
  scan?(sql: string, visit: ScanVisit): Promise<void>;
  /** A table's rows as CSV, a piece at a time, as of one instant (SqlDriver.copyCsv): Postgres targets only. */
  copyCsv?(copy: CsvCopy): Promise<boolean>;
  /** A keyset-paged read's rows as arrays, a chunk at a time, the next read ahead (SqlDriver.keysetChunks). */
  keysetChunks?(read: KeysetRead): AsyncIterable<unknown[][]>;
}

/** Takes one chunk of a scan's rows (QueryableSink.scan). */
export type ScanVisit = (rows: Record<string, unknown>[]) => void;

/**
 * The Sink over one SqlDriver: a facade that hands each call to the store of
 * its concern. Every decision (newer wins, which children are replaced, the
 * checkpoint, missing detection) is made in those stores in TypeScript; the
 * drivers only move rows.
 */
export function createSqlSink(rawDriver: SqlDriver, options: SqlSinkOptions): QueryableSink {
  // Driver errors leave the store as one-line StoreErrors that say whether a row or the target is at fault;
  // a transaction that meets a passing fault (a database restart) is run again whole.
  const storeErrors = withStoreErrors(rawDriver);
  const driver = withTransientRetries(storeErrors, options.retry ?? { budgetMs: DEFAULT_RETRY_MS });
  const now = () => isoFromMicros(options.clock().getTime() * 1000);
  const windows = new SqlWindowStore(driver, now);
  const pages = new SqlPageStore(driver);
  const sessions = new SqlSessionStore(driver);
  const deliveries = new SqlDeliveryStore(driver);
  const leases = new SqlLeaseStore(driver);
  const runs = new SqlRunLog(driver, options.reserve ?? null);
  const status = new SqlStatusSource(driver);
  const verify = new SqlVerifyStore(driver);
  const refresh = new SqlRefreshStore(driver);
  return {
    dialect: driver.dialect,
    migrate: async () => {
      await driver.migrate(options.migrations);
    },
    planWindows: (w) => windows.planWindows(w),
    listWindows: (q) => windows.listWindows(q),
    startPass: (k, p) => windows.startPass(k, p),
    splitWindow: (k, keepFrom, parts, at) => windows.splitWindow(k, keepFrom, parts, at),
    markWindow: (k, s, e, at) => windows.markWindow(k, s, e, at),
    highWaterMark: (a, r, v) => windows.highWaterMark(a, r, v),
    reopenWindows: (scope, at) => windows.reopenWindows(scope, at),
    commitPage: (p) => pages.commitPage(p),
    commitPages: (p) => pages.commitPages(p),
    mergeBatch: (b) => sessions.mergeBatch(b),
    markMissing: (a, r, ids, at) => sessions.markMissing(a, r, ids, at),
    nonFinalEpochs: (a, r) => sessions.nonFinalEpochs(a, r),
    nonFinalCount: (a, r) => sessions.nonFinalCount(a, r),
    storedEpochs: (a, r, from, to) => sessions.storedEpochs(a, r, from, to),
    refreshCandidates: (a, r, visit, within) => refresh.refreshCandidates(a, r, visit, within),
    observedDigests: (r, ids) => refresh.observedDigests(r, ids),
    recordRefreshChecks: (a, r, checks, at) => refresh.recordRefreshChecks(a, r, checks, at),
    lastDeliveryAt: () => refresh.lastDeliveryAt(),
    applyDelivery: (d, b) => deliveries.applyDelivery(d, b),
    replaceMirror: (t, a, rows) => deliveries.replaceMirror(t, a, rows),
    upsertMirror: (t, a, rows) => deliveries.upsertMirror(t, a, rows),
    mirrorRows: (t, a) => deliveries.mirrorRows(t, a),
    acquireLease: (n, h, ttl, at) => leases.acquireLease(n, h, ttl, at),
    releaseLease: (n, h) => leases.releaseLease(n, h),
    leases: () => leases.leases(),
    startRun: (r) => runs.startRun(r),
    finishRun: (id, end) => runs.finishRun(id, end),
    abandonRuns: (holder, at, how) => runs.abandonRuns(holder, at, how),
    status: (o) => status.status(o),
    startVerify: (r) => verify.startVerify(r),
    finishVerify: (id, end) => verify.finishVerify(id, end),
    storedPerWindow: (q) => verify.storedPerWindow(q),
    storedSessions: (a, r, from, to) => verify.storedSessions(a, r, from, to),
    recordCheck: (c) => verify.recordCheck(c),
    lastVerifyStart: (a) => verify.lastVerifyStart(a),
    query: (sql, params = []) => driver.read((tx) => tx.all(sql, params)),
    // Not run again after a passing fault, as the transactions are: it would hand its first rows over twice.
    ...(rawDriver.dialect === 'postgres'
      ? { scan: (sql: string, visit: ScanVisit) => storeErrors.read((tx) => tx.each(sql, [], visit)) }
      : {}),
    ...(storeErrors.copyCsv ? { copyCsv: (copy: CsvCopy) => storeErrors.copyCsv!(copy) } : {}),
    ...(storeErrors.keysetChunks ? { keysetChunks: (read: KeysetRead) => storeErrors.keysetChunks!(read) } : {}),
    close: async () => {
      try {
        await driver.close();
      } finally {
        options.reserve?.close();
      }
    },
  };
}
