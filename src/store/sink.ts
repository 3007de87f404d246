import type { Cursor } from '../api/cursor.js';
import type { ApiVersion, NormalizedBatch, Resource } from '../normalize/rows.js';
import type { VerifyStore } from './verify/verify-store.js';

/**
 * The stores ivsync writes through, one per concern; SQLite, DuckDB and
 * Postgres are adapters behind them and nothing above src/store knows which
 * one it talks to. Callers take the slice they use (a `Pick` or one of the
 * interfaces below); `Sink` is all of them over one target.
 *
 * Every method that writes is one transaction: a page's rows and its window's
 * checkpoint commit together or not at all.
 */
export interface Sink extends WindowStore, PageStore, SessionStore, RefreshStore, DeliveryStore, LeaseStore, RunLog, StatusSource, VerifyStore {
  readonly dialect: 'sqlite' | 'duckdb' | 'postgres';

  /** Applies pending migrations; idempotent. Every opener calls it. */
  migrate(): Promise<void>;

  close(): Promise<void>;
}

/** `sync_windows`: the windows of the history and each one's checkpoint. */
export interface WindowStore {
  /** Inserts the windows that do not exist yet; existing rows are left as they are. */
  planWindows(windows: readonly WindowSpec[]): Promise<void>;

  /** Windows of one account, resource and interface, ordered by window_start descending (newest first). */
  listWindows(query: WindowQuery): Promise<WindowState[]>;

  /** Begins a new pass over a window: status running, cursor null, pages and items 0, attempts + 1. */
  startPass(key: WindowKey, pass: PassSpec): Promise<void>;

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
   * Reopens (and unseals) the windows of an account and resource that
   * intersect [from, to): status pending, no cursor, no error, so that the
   * next crawl pages them again from their start. One transaction; returns
   * what it reopened.
   */
  reopenWindows(scope: ReopenScope, now: string): Promise<ReopenedWindows>;
}

/** The windows `reopenWindows` reopens: of every interface of the account and resource, all of them or those intersecting [from, to). */
export interface ReopenScope {
  account: string;
  resource: Resource;
  from?: number | undefined;
  to?: number | undefined;
}

export interface ReopenedWindows {
  account: string;
  resource: Resource;
  /** Windows set back to pending, the sealed ones among them. */
  windows: number;
  sealed: number;
  /** The range they cover, [from, to) in epoch seconds; null when none. */
  from: number | null;
  to: number | null;
}

/** The crawl's pages, each with its window's checkpoint. */
export interface PageStore {
  /** `commitPages` of one page. */
  commitPage(page: PageCommit): Promise<CommitResult>;

  /**
   * Group commit: pages (of any windows) and their checkpoints in ONE
   * transaction, applied in order: each page's sessions merged (newer never
   * loses), its rejected items kept, its window's checkpoint advanced. When a
   * page is `done`, its pass is complete: the window becomes `done`,
   * `synced_to` takes the pass's end, and sessions in the pass's range that
   * the pass did not see get `missing_since`. Returns one result per page,
   * in order, each counting that page's own sessions.
   */
  commitPages(pages: readonly PageCommit[]): Promise<CommitResult[]>;
}

/** Sessions outside window passes, and what the refresh of non-final sessions reads. */
export interface SessionStore {
  /** Merges sessions that arrived outside a window pass (a GET refresh, a lookup) in one transaction. */
  mergeBatch(batch: NormalizedBatch): Promise<CommitResult>;

  /**
   * Marks sessions missing (`missing_since = now` where still null): a GET
   * answered that the session is not there or not accessible any more.
   */
  markMissing(account: string, resource: Resource, serviceIds: readonly string[], now: string): Promise<number>;

  /** The created times (epoch seconds, ascending) of an account's stored sessions whose result is not final and that are not missing. */
  nonFinalEpochs(account: string, resource: Resource): Promise<Float64Array>;
}

/** `session_refresh`: what the refresh policy reads and writes. */
export interface RefreshStore {
  /** The non-final sessions of an account with their refresh state, for the refresh policy. */
  refreshCandidates(account: string, resource: Resource, visit: (candidate: RefreshCandidate) => void): Promise<void>;

  /** A digest of each stored session's observation: read before and after a check, a difference is a change. */
  observedDigests(resource: Resource, serviceIds: readonly string[]): Promise<Map<string, string>>;

  /** Records the checks of a refresh (insert or replace by resource and service_id). */
  recordRefreshChecks(account: string, resource: Resource, checks: readonly RefreshCheck[], now: string): Promise<void>;

  /** When the receiver last accepted a verified delivery (ISO text); null: never. */
  lastDeliveryAt(): Promise<string | null>;
}

/** The tables that mirror the service's own objects, one set per account. */
export type MirrorTable = 'webhooks' | 'domains' | 'catalog_brands' | 'catalog_materials' | 'catalog_detail_fields' | 'catalog_categories';

/** Webhook deliveries and the mirror tables. */
export interface DeliveryStore {
  /**
   * A verified webhook delivery: its inbox row (insert-or-ignore by id, so a
   * replay is one row) and its items merged, in one transaction, before the
   * receiver answers 200.
   */
  applyDelivery(delivery: DeliveryRecord, batch: NormalizedBatch): Promise<DeliveryResult>;

  /** Replaces an account's rows of a mirror table with `rows` in one transaction. Rows carry every column of the table. */
  replaceMirror(table: MirrorTable, account: string, rows: readonly Record<string, unknown>[]): Promise<void>;

  /** Inserts or replaces rows of a mirror table by primary key, keeping the account's other rows. */
  upsertMirror(table: MirrorTable, account: string, rows: readonly Record<string, unknown>[]): Promise<void>;

  /** The mirrored rows of one account (or of all when null), typed, in primary key order. */
  mirrorRows(table: MirrorTable, account: string | null): Promise<Record<string, unknown>[]>;
}

/** `sync_leases`. */
export interface LeaseStore {
  /**
   * Takes the lease `name` for `holder` when it is free or its holder's
   * heartbeat is older than `ttlSeconds`; returns the holder that has it now.
   * Renewing is calling it again with the same holder.
   */
  acquireLease(name: string, holder: string, ttlSeconds: number, now: string): Promise<LeaseState>;
  releaseLease(name: string, holder: string): Promise<void>;
  leases(): Promise<LeaseState[]>;
}

/** `sync_runs`. */
export interface RunLog {
  startRun(run: RunStart): Promise<void>;
  finishRun(id: string, end: RunEnd): Promise<void>;
  /**
   * Marks the runs of a process that died (still `running`) `abandoned`, with
   * when and how that was found in `error`; returns how many. Its verify runs too.
   */
  abandonRuns(holder: string, at: string, how: string): Promise<number>;
}

export interface StatusSource {
  /** Counts, windows and runs for `ivsync status`. */
  status(): Promise<StatusReport>;
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
  /** The checkpoint: the `next_cursor` of the pass's last committed page, as the service sent it. */
  cursor: Cursor | null;
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
  /**
   * The range the pass requests. It reaches beyond the window when one
   * request stream pages several adjacent windows (the cursor belongs to that
   * range); only the window's own part of it counts for `synced_to` and for
   * marking sessions missing.
   */
  passFrom: number;
  passTo: number;
  startedAt: string;
}

export interface PageCommit {
  key: WindowKey;
  batch: NormalizedBatch;
  /** The cursor to resume from, as the service sent it; null when the pass is complete. */
  nextCursor: Cursor | null;
  done: boolean;
  now: string;
  /**
   * Requests this commit counts for its window: a page that held items of
   * several windows is committed once per window and counted with the window
   * it was asked for. @default 1
   */
  pages?: number;
  /**
   * The run that fetched the page: the commit adds its written sessions to
   * the run's `items_written` and raises its `requests` to the tally, in the
   * same transaction, so a run that dies keeps the counts of what it
   * committed. @default no run counted
   */
  run?: RunTally;
}

/** A run's id in `sync_runs` and its live request count. */
export interface RunTally {
  id: string;
  /** Read when the commit runs: the attempts the run has sent so far. */
  tally: { readonly requests: number };
}

export interface CommitResult {
  /** Sessions inserted, or replaced by a newer observation whose content differs: "new or changed". */
  written: number;
  /** Sessions observed again with the same content: only marked seen. */
  unchanged: number;
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

/** How often a non-final session is re-checked: every run (`hot`), or on a doubling back-off. */
export type RefreshTier = 'hot' | 'backoff';

/** A non-final session as the refresh policy weighs it. */
export interface RefreshCandidate extends NonFinalSession {
  /** When the refresh last polled it (epoch seconds); null: never. */
  checkedAt: number | null;
  /** When it was last observed in any way (a page, a GET, a delivery; epoch seconds). */
  seenAt: number | null;
  /** Its back-off interval after the last poll, seconds; null: never polled. */
  intervalSeconds: number | null;
  /** Its stored content came from a verified webhook delivery: no poll since found anything newer. */
  deliveredSinceCheck: boolean;
  /** Its tier at the last check; null: never checked. */
  tier: RefreshTier | null;
}

/** The outcome of one refresh check, as session_refresh keeps it. */
export interface RefreshCheck {
  serviceId: string;
  tier: RefreshTier;
  intervalSeconds: number;
}

export interface RunStart {
  id: string;
  command: string;
  startedAt: string;
  account: string | null;
  /** The process running it, as in sync_leases (`host:pid:id`). */
  holder: string;
}

export interface RunEnd {
  finishedAt: string;
  status: 'succeeded' | 'failed' | 'interrupted';
  requests: number;
  itemsWritten: number;
  error: string | null;
  /** What the run's refresh of non-final sessions was allowed and spent; absent when it refreshed nothing. */
  refresh?: RefreshSpend | undefined;
}

/** Requests a run's refresh of non-final sessions was allowed (its budget) and planned to spend of it. */
export interface RefreshSpend {
  budget: number;
  spent: number;
}

export interface StatusReport {
  tables: Record<string, number>;
  /** Windows per status; `items` sums what their latest passes committed (a refresh that pages part of a window counts only that part), not the sessions stored: see `tables` for those. */
  windows: Array<{ account: string; resource: Resource; apiVersion: ApiVersion; status: WindowStatus; count: number; items: number }>;
  highWaterMarks: Array<{ account: string; resource: Resource; apiVersion: ApiVersion; syncedTo: number | null }>;
  nonFinal: Record<Resource, number>;
  missing: Record<Resource, number>;
  rejected: number;
  /**
   * Non-final sessions per account, resource and refresh tier as of their last
   * check ('unchecked': never re-checked), with the oldest check; for
   * 'unchecked', the oldest observation (the pass or delivery that stored it).
   */
  refresh: RefreshTierState[];
  /**
   * The latest observed lags (change_lags), at most CHANGE_LAGS_KEPT per
   * account and resource that sync_windows knows, newest first.
   */
  changeLags: ChangeLag[];
  /** When the receiver last accepted a verified delivery; null: never. */
  lastDeliveryAt: string | null;
  lastRuns: Array<{
    id: string;
    command: string;
    startedAt: string;
    finishedAt: string | null;
    status: string;
    requests: number;
    itemsWritten: number;
    error: string | null;
    holder: string | null;
    /** The run's refresh budget and what it spent; null for a run without one (or recorded before they were kept). */
    refresh: RefreshSpend | null;
  }>;
}

/**
 * The non-final sessions of one account, resource and refresh tier, with the
 * time of their last check (ISO text): the oldest, and the nearest-rank 50th
 * and 95th percentile of age. Null times: the tier has no session.
 */
export interface RefreshTierState {
  account: string;
  resource: Resource;
  tier: RefreshTier | 'unchecked';
  sessions: number;
  oldestCheckAt: string | null;
  p50CheckAt: string | null;
  p95CheckAt: string | null;
}

/** One stored change the service dated (a row of change_lags). */
export interface ChangeLag {
  account: string;
  resource: Resource;
  storedAt: string;
  lagSeconds: number;
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

export interface DeliveryResult extends CommitResult {
  /** The delivery was stored before (a replay): nothing was applied. */
  duplicate: boolean;
  /**
   * The update_counter each delivered session had in the target before this
   * delivery, read in its transaction; a session the target did not hold is
   * absent. The follow-up GETs are decided on these.
   */
  previousCounters: Record<Resource, ReadonlyMap<string, number | null>>;
}

export interface LeaseState {
  name: string;
  holder: string;
  acquiredAt: string;
  heartbeatAt: string;
  /** True when the caller holds it now. */
  held: boolean;
  /** Set when the caller just took the lease over from another holder (it died, or its heartbeat went stale). */
  tookOverFrom?: string;
}
