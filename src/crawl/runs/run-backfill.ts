import type { ResourceName } from '../../config/config.js';
import { checkInterval, type Interval } from '../../config/interval.js';
import { InterruptedError, RetriableError } from '../../errors.js';
import type { BackfillPlanSummary, CrawlContext } from '../engine/crawl-deps.js';
import { Crawler, type CrawlOutcome } from '../engine/crawler.js';
import { planBackfill } from '../engine/planner.js';
import { claimTasks } from '../engine/window-claims.js';
import { missingWindows } from '../engine/windows.js';
import { recorderDeps, runContext, type RunDeps } from './run-deps.js';
import { recordRun, type RunRecord } from './run-recorder.js';
import { watchCeiling, type CeilingWatch } from './session-ceiling.js';

export interface BackfillRunOptions {
  accounts: readonly string[];
  /**
   * Epoch seconds; the interval [from, to] is closed and rounded out to whole windows. The run fails
   * (BAD_INTERVAL, TOO_MANY_WINDOWS) when it ends before it starts or plans more windows than
   * crawl.maxWindows (config/interval.ts).
   */
  from: number;
  to: number;
  resources: readonly ResourceName[];
  /** Priority of the backfill's requests in the bucket (a daemon's background backfill runs low). @default 0 */
  priority?: number;
  wait: boolean;
  /** @default a new one */
  runId?: string | undefined;
}

export interface BackfillReport extends RunRecord {
  /** Items paged (sessions and rejected items). */
  items: number;
  pages: number;
  failedWindows: CrawlOutcome['failed'];
}

/**
 * A historical backfill, recorded in `sync_runs` under the leases of its
 * accounts. Re-running the same backfill after a crash or a signal continues
 * every window from its checkpoint. Failed windows fail the run; running it
 * again retries them.
 */
export function runBackfill(deps: RunDeps, options: BackfillRunOptions): Promise<BackfillReport> {
  const account = options.accounts.length === 1 ? options.accounts[0]! : null;
  const spec = {
    command: 'backfill' as const,
    runId: options.runId,
    account,
    accounts: options.accounts,
    wait: options.wait,
  };
  const empty = { items: 0, pages: 0, failedWindows: [] };
  return recordRun(recorderDeps(deps), spec, empty, async (run) => {
    let outcomes: CrawlOutcome[];
    let watch: CeilingWatch;
    try {
      // The library's callers give numbers; the CLI's were checked as they were parsed, and pass again.
      const interval = checkInterval(options.from, options.to, deps.crawl);
      watch = await watchCeiling(runContext(deps, run, options.accounts), deps.maxSessions, options.resources);
      outcomes = await crawlInterval(watch.ctx, interval, options);
    } finally {
      deps.claims?.release(run.id);
    }
    const details = {
      items: outcomes.reduce((n, o) => n + o.items, 0),
      pages: outcomes.reduce((n, o) => n + o.pages, 0),
      failedWindows: outcomes.flatMap((o) => o.failed),
    };
    const itemsWritten = outcomes.reduce((n, o) => n + o.written, 0);
    const tooLarge = watch.exceeded();
    if (tooLarge !== undefined) return { details, status: 'failed', error: tooLarge, itemsWritten };
    if (outcomes.some((o) => o.interrupted) || run.signal.aborted) {
      const error = new InterruptedError(
        'backfill interrupted after committing the pages in flight; run the same command again to resume',
      );
      return { details, status: 'interrupted', error, itemsWritten };
    }
    if (details.failedWindows.length > 0) {
      const error = new RetriableError(
        'WINDOWS_FAILED',
        `${details.failedWindows.length} window(s) failed (first: ${details.failedWindows[0]!.error}); run the ` +
          `same command again to retry them`,
      );
      return { details, status: 'failed', error, itemsWritten };
    }
    return { details, status: 'succeeded', error: null, itemsWritten };
  });
}

/**
 * Plans the windows of the interval that are missing and crawls every one
 * not done, per account. Re-running the same backfill after a crash
 * continues every window from its checkpoint; completed windows are not
 * fetched again.
 */
async function crawlInterval(
  ctx: CrawlContext,
  interval: Interval,
  options: Pick<BackfillRunOptions, 'resources' | 'priority'>,
): Promise<CrawlOutcome[]> {
  const { from, to } = interval;
  const now = ctx.clock() / 1000;
  const plans = await Promise.all(
    ctx.accounts.map(async (account) => {
      const tasks = [];
      const summaries: BackfillPlanSummary[] = [];
      for (const resource of options.resources) {
        const scope = { account: account.name, resource, apiVersion: account.client.apiVersion };
        const query = { ...scope, from, to: to + 1 };
        const existing = await ctx.sink.listWindows(query);
        await ctx.sink.planWindows(missingWindows(scope, from, to, ctx.crawl.windowSeconds, existing));
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
          seconds: planned.reduce(
            (sum, t) => sum + Math.min(t.passTo, t.window.windowEnd) - Math.max(t.passFrom, t.window.windowStart),
            0,
          ),
          totalSeconds: windows.reduce((sum, w) => sum + w.windowEnd - w.windowStart, 0),
        });
      }
      return { account, tasks, summaries };
    }),
  );
  ctx.onEvent?.({ type: 'backfill-plan', plans: plans.flatMap((p) => p.summaries) });
  return Promise.all(plans.map(({ account, tasks }) => new Crawler(ctx, account, options.priority ?? 0).run(tasks)));
}
