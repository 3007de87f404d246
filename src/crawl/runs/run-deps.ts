import type { CatalogClient } from './catalog-refresh.js';
import type { CrawlAccount, CrawlClient, CrawlDeps } from '../engine/crawl-deps.js';

/** One account a process can run for: its name and its client (bound to its token and bucket). */
export interface RunAccount extends CrawlAccount {
  client: CrawlClient & CatalogClient;
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
 * The rest of what the crawl depends on is declared once, in CrawlDeps.
 */
export interface RunDeps extends CrawlDeps {
  /** Every account the process serves; a run picks its own by name. */
  accounts: readonly RunAccount[];
  leases: RunLeases;
}
