import type { CallOptions, RequestTally } from '../../api/service-client.js';
import type { Cursor } from '../../api/cursor.js';
import type { CrawlConfig } from '../../config/config.js';
import type { ApiVersion, NormalizedBatch, ObservationContext, Resource } from '../../normalize/rows.js';
import type { CrawlStore } from '../../store/sink.js';
import type { RefreshSettings } from '../refresh/refresh-settings.js';
import type { CommitQueue } from './commit-queue.js';
import type { BucketRoom } from './room-watch.js';
import type { StreamBudget } from './stream-budget.js';
import type { WindowClaims } from './window-claims.js';

/**
 * What every crawl of a process depends on, one object down the whole path:
 * the process's RunDeps (runs/run-deps.ts) add the accounts it serves and its
 * leases; a run's CrawlContext (crawl-context.ts) its own accounts, signal and
 * request tally; a crawler takes the part it uses (crawler.ts).
 */
export interface CrawlDeps {
  sink: CrawlStore;
  crawl: CrawlConfig;
  /** How sync re-checks non-final sessions (budget, tiers, webhooks). @default DEFAULT_REFRESH_SETTINGS */
  refresh?: RefreshSettings | undefined;
  normalize: Normalize;
  /** Milliseconds since the epoch. */
  clock: () => number;
  /** Aborted when the process (or the run) stops: crawls commit their pages in flight and end interrupted. */
  signal: AbortSignal;
  /** Shared by every run on the target, so that pages of concurrent crawls commit together. */
  commits: CommitQueue;
  /** The windows this process's runs page, so that two of them never page one window. @default no claims */
  claims?: WindowClaims | undefined;
  /** The request streams of every crawl in the process, fairly shared by the accounts. @default no process-wide cap */
  streams?: StreamBudget | undefined;
  /** Progress, logs and metrics. */
  onEvent?: ((event: CrawlEvent) => void) | undefined;
}

/** Everything one run's backfill, sync or verify works with: the process's CrawlDeps and the run's own part. */
export interface CrawlContext extends CrawlDeps {
  /** The accounts of the run. */
  accounts: readonly CrawlAccount[];
  /** The run's own request count: every call of the run adds its attempts here. */
  tally: RequestTally;
  /** The run's id in `sync_runs`: its page commits raise its counts there. @default none */
  runId?: string | undefined;
}

/** One account as the crawl sees it: a name and a client bound to its token and bucket. */
export interface CrawlAccount {
  name: string;
  client: CrawlClient;
  /** The token's bucket, so that a crawl adds request streams only while it has room. */
  bucket?: BucketRoom | undefined;
  /**
   * Seconds between this account's runs, when its schedule is its own
   * (`accounts[].schedule`): its refresh budget and back-off count in its runs.
   * @default the refresh settings' runSeconds (the daemon's schedule)
   */
  runSeconds?: number | undefined;
}

/** The part of the API client the crawl uses. */
export interface CrawlClient {
  readonly apiVersion: ApiVersion;
  pages(
    resource: Resource,
    request: { range?: { start: number | null; end: number | null }; cursor?: Cursor | null; limit?: number },
    options?: CallOptions,
  ): AsyncIterable<{ items: unknown[]; nextCursor: Cursor | null; warnings: unknown[]; itemTexts?: readonly string[] }>;
  get(
    resource: Resource,
    serviceId: string,
    options?: CallOptions,
  ): Promise<{ item: unknown; warnings: unknown[]; itemText?: string } | null>;
}

/** The normalizer, as the crawl calls it; `texts`, when given, are the items' JSON texts as received. */
export type Normalize = (
  resource: Resource,
  apiVersion: ApiVersion,
  items: readonly unknown[],
  ctx: ObservationContext,
  texts?: readonly string[],
) => NormalizedBatch;

/** What the crawl reports as it goes (progress bars, logs, metrics). */
export type CrawlEvent =
  /** `pagesLeft`: the pages the crawl expects to take still, each stream at its own density; null while unknown. */
  | {
      type: 'page';
      account: string;
      resource: Resource;
      items: number;
      rejected: number;
      written: number;
      stale: number;
      covered: number;
      pagesLeft: number | null;
    }
  | { type: 'pass-done'; account: string; resource: Resource; windowStart: number; windowEnd: number; missing: number }
  | { type: 'window-split'; account: string; resource: Resource; windowStart: number; parts: number }
  | { type: 'window-failed'; account: string; resource: Resource; windowStart: number; error: string }
  | {
      type: 'refresh';
      account: string;
      resource: Resource;
      budget: number;
      repaged: number;
      fetched: number;
      cost: number;
      naiveCost: number;
      due: number;
      deferred: number;
    }
  | { type: 'backfill-plan'; plans: readonly BackfillPlanSummary[] }
  /**
   * Every stream the config allows the account (`crawl.concurrency`) or its share of the process's
   * (`crawl.processConcurrency`) was waiting on the service while the bucket had tokens to spare: the streams, not
   * the limit, held the request rate. Once per crawl.
   */
  | { type: 'streams-capped'; account: string; streams: number; cap: StreamCap; roundTripMs: number };

/** The setting whose bound held a crawl's streams. */
export type StreamCap = 'crawl.concurrency' | 'crawl.processConcurrency';

/** What a backfill will page, per account and resource, before it starts. */
export interface BackfillPlanSummary {
  account: string;
  resource: Resource;
  windows: number;
  todo: number;
  resumed: number;
  /** Epoch seconds still to cover, for an ETA. */
  seconds: number;
  /**
   * Epoch seconds of every window of the interval, done or not: a resumed run's progress starts at the part already
   * done.
   */
  totalSeconds: number;
}
