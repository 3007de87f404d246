import type { ResourceName } from '../../config/config.js';
import { UserError } from '../../errors.js';
import { crawlerFor, type CrawlContext } from '../engine/crawl-context.js';
import type { BackfillPlanSummary } from '../engine/crawl-deps.js';
import type { CrawlOutcome } from '../engine/crawler.js';
import { planBackfill } from '../engine/planner.js';
import { claimTasks } from '../engine/window-claims.js';
import { checkWindowCount, missingWindows } from '../engine/windows.js';

export interface BackfillOptions {
  /** Epoch seconds; the interval [from, to] is closed and rounded out to whole windows. */
  from: number;
  to: number;
  resources: readonly ResourceName[];
  /** Priority of the backfill's requests in the bucket (a daemon's background backfill runs low). @default 0 */
  priority?: number;
}

/**
 * Crawls a closed historical interval. Re-running the same command after a
 * crash continues every window from its checkpoint; completed windows are
 * not fetched again.
 */
export async function backfill(ctx: CrawlContext, options: BackfillOptions): Promise<CrawlOutcome[]> {
  if (!(options.to >= options.from)) {
    throw new UserError('BAD_INTERVAL', `--to must not be before --from`);
  }
  checkWindowCount(options.from, options.to, ctx.crawl);
  const now = ctx.clock() / 1000;
  const plans = await Promise.all(
    ctx.accounts.map(async (account) => {
      const tasks = [];
      const summaries: BackfillPlanSummary[] = [];
      for (const resource of options.resources) {
        const scope = { account: account.name, resource, apiVersion: account.client.apiVersion };
        const query = { ...scope, from: options.from, to: options.to + 1 };
        const existing = await ctx.sink.listWindows(query);
        await ctx.sink.planWindows(missingWindows(scope, options.from, options.to, ctx.crawl.windowSeconds, existing));
        const windows = await ctx.sink.listWindows(query);
        // A window another run of this process pages already (a scheduled sync of the daemon) is left to it.
        const planned = claimTasks(ctx.claims, ctx.runId, planBackfill(windows, now)).map((t) => ({ ...t, resource }));
        tasks.push(...planned);
        summaries.push({
          account: account.name,
          resource,
          windows: windows.length,
          todo: planned.length,
          resumed: planned.filter((t) => t.resume).length,
          // A resumed pass may request beyond its window (it paged several): count the window's own part.
          seconds: planned.reduce((sum, t) => sum + Math.min(t.passTo, t.window.windowEnd) - Math.max(t.passFrom, t.window.windowStart), 0),
          totalSeconds: windows.reduce((sum, w) => sum + w.windowEnd - w.windowStart, 0),
        });
      }
      return { account, tasks, summaries };
    }),
  );
  ctx.onEvent?.({ type: 'backfill-plan', plans: plans.flatMap((p) => p.summaries) });
  return Promise.all(plans.map(({ account, tasks }) => crawlerFor(ctx, account, options.priority ?? 0).run(tasks)));
}
