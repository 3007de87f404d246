import type { CrawlConfig } from '../../config/config.js';
import type { Sink } from '../../store/sink.js';
import type { CatalogClient } from './catalog-refresh.js';
import type { CommitQueue } from '../engine/commit-queue.js';
import type { CrawlClient, CrawlEvent, Normalize } from '../engine/crawl-deps.js';
import type { BucketRoom } from '../engine/room-watch.js';
import type { RefreshSettings } from '../refresh/refresh-settings.js';
import type { WindowClaims } from '../engine/window-claims.js';

/** One account a process can run for: its name and its client (bound to its token and bucket). */
export interface RunAccount {
  name: string;
  client: CrawlClient & CatalogClient;
  /** The token's bucket, so that a crawl adds request streams only while it has room. */
  bucket?: BucketRoom;
}

/**
 * The leases of this process in the target (daemon/lease-keeper.ts): a run
 * holds the lease of every account it works on, so one process at a time
 * syncs an account into a target.
 */
export interface RunLeases {
  /** Who this process is in `sync_leases` (`host:pid:id`). */
  readonly holder: string;
  /** Takes every lease in `names` or none; throws LeaseHeldError, or waits with `wait`. Returns the release. */
  hold(names: readonly string[], options: { wait: boolean; signal: AbortSignal }): Promise<() => Promise<void>>;
  /** Aborted, with a LeaseLostError as reason, when another process takes over one of the held `names`. */
  lossSignal(names: readonly string[]): AbortSignal;
}

/**
 * What a run needs from the process that starts it: the CLI builds these for
 * one command, the daemon once for all its runs (one target connection, one
 * client and bucket per account, one commit queue, its leases and metrics).
 */
export interface RunDeps {
  sink: Sink;
  /** Every account the process serves; a run picks its own by name. */
  accounts: readonly RunAccount[];
  crawl: CrawlConfig;
  /** How sync re-checks non-final sessions (budget, tiers, webhooks). @default DEFAULT_REFRESH_SETTINGS */
  refresh?: RefreshSettings | undefined;
  normalize: Normalize;
  /** Milliseconds since the epoch. */
  clock: () => number;
  /** Aborted when the process stops (SIGINT/SIGTERM): runs commit their pages in flight and end interrupted. */
  signal: AbortSignal;
  leases: RunLeases;
  /** Shared by every run on the target, so that pages of concurrent crawls commit together. */
  commits: CommitQueue;
  /** The windows this process's runs page, so that two of them never page one window. @default no claims */
  claims?: WindowClaims | undefined;
  /** Progress, logs and metrics. */
  onEvent?: ((event: CrawlEvent) => void) | undefined;
}
