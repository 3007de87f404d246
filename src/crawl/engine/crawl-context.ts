import type { RequestTally } from '../../api/service-client.js';
import { Crawler } from './crawler.js';
import type { CrawlAccount, CrawlDeps } from './crawl-deps.js';

export type { CrawlAccount } from './crawl-deps.js';

/** Everything one run's backfill, sync or verify works with: the process's CrawlDeps and the run's own part. */
export interface CrawlContext extends CrawlDeps {
  /** The accounts of the run. */
  accounts: readonly CrawlAccount[];
  /** The run's own request count: every call of the run adds its attempts here. */
  tally: RequestTally;
  /** The run's id in `sync_runs`: its page commits raise its counts there. @default none */
  runId?: string | undefined;
  /** Resources the run syncs per account: they share the account's refresh budget. @default 1 */
  resourcesInRun?: number | undefined;
}

/** A crawler of one account for a run, its requests at `priority` in the account's bucket and counted in the run's tally. */
export function crawlerFor(ctx: CrawlContext, account: CrawlAccount, priority: number): Crawler {
  return new Crawler(ctx, account, priority);
}
