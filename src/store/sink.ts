import type { ApiVersion, NormalizedBatch, Resource } from '../normalize/rows.js';

/**
 * The one interface the crawl, the webhook receiver and the CLI write through.
 * SQLite, DuckDB and Postgres are adapters behind it; nothing above src/store
 * knows which one it talks to.
 *
 * Every method that writes is one transaction: a page's rows and its window's
 * checkpoint commit together or not at all.
 */
export interface Sink {
  readonly dialect: 'sqlite' | 'duckdb' | 'postgres';

  /** Applies pending migrations; idempotent. Every opener calls it. */
  migrate(): Promise<void>;

  /** Inserts the windows that do not exist yet; existing rows are left as they are. */
  planWindows(windows: readonly WindowSpec[]): Promise<void>;

  /** Windows of one account, resource and interface, ordered by window_start descending (newest first). */
  listWindows(query: WindowQuery): Promise<WindowState[]>;

  /** Begins a new pass over a window: status running, cursor null, pages and items 0, attempts + 1. */
  startPass(key: WindowKey, pass: PassSpec): Promise<void>;

  /**
   * Merges a page's sessions (newer never loses to older), keeps its rejected
   * items, and advances the window's checkpoint, in one transaction. When
   * `done`, the pass is complete: the window becomes `done`, `synced_to` takes
   * the pass's end, and sessions in the pass's range that the pass did not see
   * get `missing_since`.
   */
  commitPage(page: PageCommit): Promise<CommitResult>;

  /**
   * Group commit: several pages (of any windows) and their checkpoints in ONE
   * transaction, each with the semantics of commitPage, applied in order.
   * The crawler uses it when pages arrive faster than single transactions
   * commit; bulk loads use it to amortize the commit.
   */
  commitPages(pages: readonly PageCommit[]): Promise<CommitResult>;

  /**
   * Merges sessions that arrived outside a window pass (a GET refresh, a
   * lookup) in one transaction.
   */
  mergeBatch(batch: NormalizedBatch, now: string): Promise<CommitResult>;

  /**
   * Splits the unfetched rest of a dense window: in one transaction the
   * window's row shrinks to [keepFrom, window_end) and is marked done, and the
   * given windows (which partition [window_start, keepFrom)) are inserted pending.
   */
  splitWindow(key: WindowKey, keepFrom: number, parts: readonly WindowSpec[], now: string): Promise<void>;

  /** Sets a window's status (sealed, failed, pending) and error. */
  markWindow(key: WindowKey, status: WindowStatus, error: string | null, now: string): Promise<void>;

  /** The largest `synced_to` over the windows of an account, resource and interface; null when none. */
  highWaterMark(account: string, resource: Resource, apiVersion: ApiVersion): Promise<number | null>;

  /**
   * Marks sessions missing (`missing_since = now` where still null): a GET
   * answered that the session is not there or not accessible any more.
   */
  markMissing(account: string, resource: Resource, serviceIds: readonly string[], now: string): Promise<number>;

  /** Stored sessions of an account whose result is not final and that are not missing. */
  nonFinalSessions(account: string, resource: Resource): Promise<NonFinalSession[]>;

  /**
   * A verified webhook delivery: its inbox row (insert-or-ignore by id, so a
   * replay is one row) and its items merged, in one transaction, before the
   * receiver answers 200.
   */
  applyDelivery(delivery: DeliveryRecord, batch: NormalizedBatch): Promise<CommitResult & { duplicate: boolean }>;

  /**
   * Replaces an account's rows of a mirror table (webhooks, domains, catalog_*)
   * with `rows` in one transaction. Rows must carry every column of the table.
   */
  replaceMirror(table: string, account: string, rows: readonly Record<string, unknown>[]): Promise<void>;

  /**
   * Takes the lease `name` for `holder` when it is free or its holder's
   * heartbeat is older than `ttlSeconds`; returns the holder that has it now.
   * Renewing is calling it again with the same holder.
   */
  acquireLease(name: string, holder: string, ttlSeconds: number, now: string): Promise<LeaseState>;
  releaseLease(name: string, holder: string): Promise<void>;
  leases(): Promise<LeaseState[]>;

  startRun(run: RunStart): Promise<void>;
  finishRun(id: string, end: RunEnd): Promise<void>;

  /** Counts, windows and runs for `ivsync status`. */
  status(): Promise<StatusReport>;

  close(): Promise<void>;
}

export type WindowStatus = 'pending' | 'running' | 'done' | 'sealed' | 'failed';

export interface WindowKey {
  account: string;
  resource: Resource;
  apiVersion: ApiVersion;
  /** Epoch seconds, inclusive. */
  windowStart: number;
}

export interface WindowSpec extends WindowKey {
  /** Epoch seconds, exclusive. */
  windowEnd: number;
}

export interface WindowState extends WindowSpec {
  status: WindowStatus;
  cursor: string | null;
  pages: number;
  items: number;
  attempts: number;
  error: string | null;
  updatedAt: string;
  passFrom: number | null;
  passTo: number | null;
  passStartedAt: string | null;
  syncedTo: number | null;
}

export interface WindowQuery {
  account: string;
  resource: Resource;
  apiVersion: ApiVersion;
  /** Only windows whose range intersects [from, to). */
  from?: number;
  to?: number;
  status?: readonly WindowStatus[];
}

export interface PassSpec {
  /** The range the pass requests, within the window. */
  passFrom: number;
  passTo: number;
  startedAt: string;
}

export interface PageCommit {
  key: WindowKey;
  batch: NormalizedBatch;
  /** The cursor to resume from; null when the pass is complete. */
  nextCursor: string | null;
  done: boolean;
  now: string;
}

export interface CommitResult {
  /** Sessions inserted or replaced (newer than what was stored). */
  written: number;
  /** Sessions not applied because the stored row was newer. */
  stale: number;
  rejected: number;
  /** Sessions marked missing by a completed pass. */
  missing: number;
}

export interface NonFinalSession {
  serviceId: string;
  createdEpoch: number | null;
}

export interface RunStart {
  id: string;
  command: string;
  startedAt: string;
  account: string | null;
}

export interface RunEnd {
  finishedAt: string;
  status: 'succeeded' | 'failed' | 'interrupted';
  requests: number;
  itemsWritten: number;
  error: string | null;
}

export interface StatusReport {
  tables: Record<string, number>;
  windows: Array<{ account: string; resource: Resource; apiVersion: ApiVersion; status: WindowStatus; count: number; items: number }>;
  highWaterMarks: Array<{ account: string; resource: Resource; apiVersion: ApiVersion; syncedTo: number | null }>;
  nonFinal: Record<Resource, number>;
  missing: Record<Resource, number>;
  rejected: number;
  lastRuns: Array<{ id: string; command: string; startedAt: string; finishedAt: string | null; status: string; requests: number; itemsWritten: number; error: string | null }>;
}

export interface DeliveryRecord {
  /** Hash of webhook uuid and raw body: a replay has the same id. */
  id: string;
  webhookUuid: string | null;
  channel: string | null;
  receivedAt: string;
  items: number;
  /** The raw body text as received (verified). */
  body: string;
}

export interface LeaseState {
  name: string;
  holder: string;
  acquiredAt: string;
  heartbeatAt: string;
  /** True when the caller holds it now. */
  held: boolean;
}
