import type { Cursor } from '../api/cursor.js';
import type { ApiVersion, NormalizedBatch, NormalizedSession, Resource } from '../normalize/rows.js';

/**
 * What goes into the stores and comes out of them (src/store/sink.ts): windows, pages, runs, refresh
 * checks, deliveries, leases, verify findings. Plain data, apart from the interfaces so that every store
 * and its callers can name it without importing one another.
 */

/** The tables that mirror the service's own objects, one set per account. */
export type MirrorTable =
  'webhooks' | 'domains' | 'catalog_brands' | 'catalog_materials' | 'catalog_detail_fields' | 'catalog_categories';

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

/** A pass a page begins for its window (PageCommit.begin), with the window's end, which bounds its part of the pass. */
export interface PassBegin extends PassSpec {
  windowEnd: number;
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
  /**
   * The pass this page begins for its window (the first page of the stream
   * that reaches it): recorded in the page's transaction, before its
   * checkpoint advances, as `startPass` would, so a window is begun and
   * advanced by one commit. @default the window's pass was started before
   */
  begin?: PassBegin;
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
  /** Answers 429 the run met, and what its retries waited. @default 0 */
  throttled?: number | undefined;
  retryWaitMs?: number | undefined;
}

/** Requests a run's refresh of non-final sessions was allowed (its budget) and sent (each attempt). */
export interface RefreshSpend {
  budget: number;
  spent: number;
}

/**
 * What a status read counts. `tables` (the default): every table's rows, read
 * whole, as `ivsync status` shows them. `false`: `tables` is left empty, for
 * the readers that come often (the daemon after each tick, the status page
 * every few seconds): a whole table's count grows with the history (at ten
 * million sessions in Postgres, most of a status read), and neither shows it.
 */
export interface StatusOptions {
  tables?: boolean;
}

export interface StatusReport {
  /** Rows per table; empty when the read was asked for without them (StatusOptions). */
  tables: Record<string, number>;
  /**
   * Windows per status; `items` sums what their latest passes committed (a refresh that pages part of a window counts
   * only that part), not the sessions stored: see `tables` for those.
   */
  windows: Array<{
    account: string;
    resource: Resource;
    apiVersion: ApiVersion;
    status: WindowStatus;
    count: number;
    items: number;
  }>;
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

export type FindingKind = 'missing_locally' | 'not_returned' | 'changed';

/** One row of `verify_findings`, before the run's id and number are put on it. */
export interface VerifyFinding {
  account: string;
  resource: Resource;
  serviceId: string;
  kind: FindingKind;
  /** The differing column ('changed'), 'missing_since' for a session stored as missing, else null. */
  column: string | null;
  storedValue: string | null;
  serviceValue: string | null;
  windowStart: number;
}

export type VerifyStatus = 'succeeded' | 'partial' | 'failed' | 'interrupted';

export interface VerifyStart {
  id: string;
  startedAt: string;
  /** The one account checked, or null for all. */
  account: string | null;
  budget: number;
  seed: string;
  /** The process running it (`host:pid:id`), so a run whose process died can be shown abandoned. */
  holder: string;
}

export interface VerifyEnd {
  finishedAt: string;
  status: VerifyStatus;
  requests: number;
  windowsChecked: number;
  sessionsChecked: number;
  findings: number;
  /** Null when the run did not repair. */
  repaired: number | null;
  error: string | null;
}

/** What `--repair` does for one checked window, in the transaction that records its findings. */
export interface WindowRepair {
  key: WindowKey;
  /** The fresh observations of the sessions found missing locally or changed. */
  sessions: readonly NormalizedSession[];
  /** Of those, the ones whose stored columns differ although the item text is the same (edited in the target). */
  rewrite: ReadonlySet<string>;
  /** Stored sessions a complete pass no longer returned. */
  notReturned: readonly string[];
  /** When the window's pages were asked for: a session seen since (a webhook) is not marked missing. */
  pagedSince: string;
  now: string;
}

export interface WindowCheck {
  runId: string;
  /** Number of the window's first finding within the run. */
  firstSeq: number;
  findings: readonly VerifyFinding[];
  repair?: WindowRepair | undefined;
}
