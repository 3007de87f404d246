import type { ApiVersion, NormalizedBatch, Resource } from '../normalize/rows.js';
import type { Dialect } from '../schema/dialect.js';
import type {
  MirrorTable,
  WindowStatus,
  WindowKey,
  WindowSpec,
  WindowState,
  WindowQuery,
  PassSpec,
  PageCommit,
  CommitResult,
  RefreshCandidate,
  RefreshCheck,
  RunStart,
  RunEnd,
  StatusOptions,
  StatusReport,
  DeliveryRecord,
  DeliveryResult,
  LeaseState,
  VerifyStart,
  VerifyEnd,
  WindowCheck,
} from './records.js';

export type * from './records.js';

/**
 * The stores ivsync writes through, one per concern; SQLite, DuckDB and
 * Postgres are adapters behind them and nothing above src/store knows which
 * one it talks to. Callers take the slice they use (a `Pick` or one of the
 * interfaces below); `Sink` is all of them over one target.
 *
 * Every method that writes is one transaction: a page's rows and its window's
 * checkpoint commit together or not at all.
 */
export interface Sink
  extends
    WindowStore,
    PageStore,
    SessionStore,
    RefreshStore,
    DeliveryStore,
    LeaseStore,
    RunLog,
    StatusSource,
    VerifyStore {
  readonly dialect: Dialect;

  /** Applies pending migrations; idempotent. Every opener calls it. */
  migrate(): Promise<void>;

  close(): Promise<void>;
}

/**
 * What the crawl path (sync, backfill, verify, the refresh of non-final
 * sessions, the catalog refresh) reads and writes: every store but the
 * leases, the status report and the webhook inbox. It never opens, migrates
 * or closes the target; the process that holds the Sink does.
 */
export type CrawlStore = WindowStore &
  PageStore &
  SessionStore &
  RefreshStore &
  RunLog &
  VerifyStore &
  Pick<DeliveryStore, 'replaceMirror'>;

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

/**
 * The windows `reopenWindows` reopens: of every interface of the account and resource, all of them or those
 * intersecting [from, to).
 */
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

  /**
   * The created times (epoch seconds, ascending) of an account's stored sessions whose result is not final and that are
   * not missing.
   */
  nonFinalEpochs(account: string, resource: Resource): Promise<Float64Array>;

  /**
   * The created times (epoch seconds, ascending) of an account's stored sessions created in [from, to) that are not
   * missing: what paging that range returns, as far as the target knows.
   */
  storedEpochs(account: string, resource: Resource, from: number, to: number): Promise<Float64Array>;

  /** How many of an account's stored sessions are not final and not missing. */
  nonFinalCount(account: string, resource: Resource): Promise<number>;
}

/** `session_refresh`: what the refresh policy reads and writes. */
export interface RefreshStore {
  /** The non-final sessions of an account with their refresh state, for the refresh policy. */
  refreshCandidates(
    account: string,
    resource: Resource,
    visit: (candidate: RefreshCandidate) => void,
    /** Only those created in [from, to). */
    within?: { from: number; to: number },
  ): Promise<void>;

  /** A digest of each stored session's observation: read before and after a check, a difference is a change. */
  observedDigests(resource: Resource, serviceIds: readonly string[]): Promise<Map<string, string>>;

  /** Records the checks of a refresh (insert or replace by resource and service_id). */
  recordRefreshChecks(account: string, resource: Resource, checks: readonly RefreshCheck[], now: string): Promise<void>;

  /** When the receiver last accepted a verified delivery (ISO text); null: never. */
  lastDeliveryAt(): Promise<string | null>;
}

/** Webhook deliveries and the mirror tables. */
export interface DeliveryStore {
  /**
   * A verified webhook delivery: its inbox row (insert-or-ignore by id, so a
   * replay is one row) and its items merged, in one transaction, before the
   * receiver answers 200.
   */
  applyDelivery(delivery: DeliveryRecord, batch: NormalizedBatch): Promise<DeliveryResult>;

  /**
   * Replaces an account's rows of a mirror table with `rows` in one transaction. Rows carry every column of the table.
   */
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
  /** Counts, windows and runs for `ivsync status`, the daemon's metrics and the status page. */
  status(options?: StatusOptions): Promise<StatusReport>;
}

/** `verify_runs`, `verify_findings`, and what a verify reads of the stored history. */
export interface VerifyStore {
  startVerify(run: VerifyStart): Promise<void>;
  finishVerify(id: string, end: VerifyEnd): Promise<void>;
  /**
   * Stored sessions (not missing) per window_start, for the windows of `query`: what paging each again should return.
   */
  storedPerWindow(query: WindowQuery): Promise<Map<number, number>>;
  /** An account's stored sessions created in [from, to), typed (every column but raw). */
  storedSessions(account: string, resource: Resource, from: number, to: number): Promise<Record<string, unknown>[]>;
  /**
   * Records one checked window's findings; with `repair`, in the same
   * transaction merges the fresh observations (newer never loses), marks the
   * sessions no longer returned missing, and, when anything drifted, sets the
   * window pending (a sealed one too) so the next crawl of it pages it again.
   * Returns how many sessions the repair wrote or marked.
   */
  recordCheck(check: WindowCheck): Promise<{ repaired: number }>;
  /** When the last verify that covered `account` started (one of all accounts counts); null when none. */
  lastVerifyStart(account: string): Promise<string | null>;
}
