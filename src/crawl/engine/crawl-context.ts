import type { RequestTally } from '../../api/service-client.js';
import type { CrawlConfig } from '../../config/config.js';
import type { Sink } from '../../store/sink.js';
import type { CommitQueue } from './commit-queue.js';
import { Crawler } from './crawler.js';
import type { CrawlClient, CrawlEvent, Normalize } from './crawl-deps.js';
import type { BucketRoom } from './room-watch.js';
import type { RefreshSettings } from '../refresh/refresh-settings.js';
import type { WindowClaims } from './window-claims.js';

/** One account as the crawl sees it: a name and a client bound to its token and bucket. */
export interface CrawlAccount {
  name: string;
  client: CrawlClient;
  /** The token's bucket, so that a crawl adds request streams only while it has room. */
  bucket?: BucketRoom;
}

/** Everything one run's backfill or sync needs (see run-deps.ts for what a caller provides). */
export interface CrawlContext {
  sink: Sink;
  accounts: readonly CrawlAccount[];
  crawl: CrawlConfig;
  normalize: Normalize;
  /** Milliseconds since the epoch. */
  clock: () => number;
  signal: AbortSignal;
  onEvent?: (event: CrawlEvent) => void;
  commits: CommitQueue;
  /** The run's own request count: every call of the run adds its attempts here. */
  tally: RequestTally;
  /** The run's id in `sync_runs`: its page commits raise its counts there. @default none */
  runId?: string | undefined;
  /** The windows the process's runs page: a run pages only the windows it claims. @default no claims */
  claims?: WindowClaims | undefined;
  /** How the refresh of non-final sessions spends the run. @default DEFAULT_REFRESH_SETTINGS */
  refresh?: RefreshSettings | undefined;
  /** Resources the run syncs per account: they share the account's refresh budget. @default 1 */
  resourcesInRun?: number | undefined;
}

/** A crawler of one account for a run, its requests at `priority` in the account's bucket and counted in the run's tally. */
export function crawlerFor(ctx: CrawlContext, account: CrawlAccount, priority: number): Crawler {
  return new Crawler(
    {
      client: account.client,
      sink: ctx.sink,
      normalize: ctx.normalize,
      clock: ctx.clock,
      signal: ctx.signal,
      onEvent: ctx.onEvent,
      commits: ctx.commits,
      ...(account.bucket ? { bucket: account.bucket } : {}),
    },
    {
      account: account.name,
      apiVersion: account.client.apiVersion,
      concurrency: ctx.crawl.concurrency,
      splitAfterPages: ctx.crawl.splitAfterPages,
      call: { priority, tally: ctx.tally },
      runId: ctx.runId,
    },
  );
}
