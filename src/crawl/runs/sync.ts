import { PRIORITY } from '../../config/constants.js';
import type { ResourceName } from '../../config/config.js';
import { InputError } from '../../errors.js';
import { toIsoMicros } from '../../normalize/time.js';
import { Crawler } from '../engine/crawler.js';
import type { CrawlAccount, CrawlContext } from '../engine/crawl-deps.js';
import type { CrawlOutcome } from '../engine/crawler.js';
import { planIncremental, planSeal } from '../engine/planner.js';
import { NO_REFRESH, refreshNonFinal, type RefreshOutcome } from '../refresh/refresh-non-final.js';
import { refreshParts, type RefreshPart } from '../refresh/refresh-settings.js';
import { claimTasks } from '../engine/window-claims.js';
import { checkWindowCount } from '../../config/interval.js';
import { missingWindows } from '../engine/windows.js';

export interface SyncOptions {
  resources: readonly ResourceName[];
  /** Where to start when the target holds no checkpoint yet (epoch seconds). */
  since?: number | undefined;
}

export interface SyncOutcome {
  account: string;
  resource: ResourceName;
  /** The range the incremental pass covered. */
  from: number;
  to: number;
  incremental: CrawlOutcome;
  refresh: RefreshOutcome;
  sealed: number;
}

/**
 * Incremental sync of every account and resource: pages from the high-water
 * mark minus the overlap to now, refreshes sessions whose result is not final
 * the cheaper way, and seals windows that can no longer change. An account's
 * resources page side by side; what their passes leave of the account's
 * budget is then split over their refreshes by their non-final sessions, so
 * that each resource's sessions come round as often whatever its pass cost.
 */
export async function sync(ctx: CrawlContext, options: SyncOptions): Promise<SyncOutcome[]> {
  const runs = ctx.accounts.map(async (account) => {
    const nonFinal = await Promise.all(options.resources.map((r) => ctx.sink.nonFinalCount(account.name, r)));
    const parts = refreshParts(nonFinal);
    const passes = await Promise.all(options.resources.map((resource) => passOne(ctx, account, resource, options)));
    const passPages = passes.reduce((sum, p) => sum + p.incremental.pages, 0);
    return Promise.all(passes.map((pass, i) => finishOne(ctx, account, pass, passPages, parts[i]!)));
  });
  return (await Promise.all(runs)).flat();
}

/** What a resource's incremental pass did, for its refresh and sealing. */
interface Pass {
  resource: ResourceName;
  /** The run's time, epoch seconds: the pass's end and the refresh's now. */
  now: number;
  from: number;
  incremental: CrawlOutcome;
  /** The ranges the pass paged: the sessions in them were just seen. */
  passed: Array<[number, number]>;
}

/** The incremental pass of one resource: from the mark minus the overlap (or --since) to now. */
async function passOne(
  ctx: CrawlContext,
  account: CrawlAccount,
  resource: ResourceName,
  options: SyncOptions,
): Promise<Pass> {
  const { sink } = ctx;
  const now = ctx.clock() / 1000;
  const scope = { account: account.name, resource, apiVersion: account.client.apiVersion };
  const hwm = await sink.highWaterMark(account.name, resource, account.client.apiVersion);
  const since = options.since ?? ctx.crawl.since;
  if (hwm === null && since === undefined) {
    // A usage mistake (exit 2); sync checks a target that does not exist yet before touching it.
    throw new InputError(
      'NEEDS_SINCE',
      `the first sync of account '${account.name}' (${resource}) needs --since T (or crawl.since in the ` +
        `config): the target has no checkpoint to continue from`,
    );
  }
  // With no checkpoint the run starts at --since; afterwards at the mark minus the overlap,
  // so that sessions uploaded late with past timestamps are still found. `since` is only
  // where the first sync starts: a daemon holds it in its config for every tick, and
  // taking it again would page every window not sealed yet on every run.
  const from = hwm === null ? since! : hwm - ctx.crawl.overlapSeconds;

  checkWindowCount(from, now, ctx.crawl);
  const query = { ...scope, from, to: Math.ceil(now) + 1 };
  await sink.planWindows(missingWindows(scope, from, now, ctx.crawl.windowSeconds, await sink.listWindows(query)));
  // Every window of the scope: one left without a complete pass outside [from, now) is paged too.
  // A window another run of this process pages (the daemon's background backfill) is left to it.
  const tasks = claimTasks(ctx.claims, ctx.runId, planIncremental(await sink.listWindows(scope), from, now));
  const incremental = await new Crawler(ctx, account, PRIORITY.incremental).run(tasks.map((t) => ({ ...t, resource })));
  const passed = tasks.map((t): [number, number] => [t.passFrom, t.passTo]);
  return { resource, now, from, incremental, passed };
}

/** A resource's refresh, on its part of what the account's passes (`passPages`) left, then its sealing. */
async function finishOne(
  ctx: CrawlContext,
  account: CrawlAccount,
  pass: Pass,
  passPages: number,
  refreshPart: RefreshPart,
): Promise<SyncOutcome> {
  const { sink } = ctx;
  const { resource, now, from, incremental, passed } = pass;
  const outcome = { account: account.name, resource, from, to: now, incremental };
  if (incremental.interrupted) return { ...outcome, refresh: NO_REFRESH, sealed: 0 };

  const refresh = await refreshNonFinal(ctx, account, resource, passed, passPages, now, refreshPart);

  let sealed = 0;
  if (!ctx.signal.aborted) {
    const scope = { account: account.name, resource, apiVersion: account.client.apiVersion };
    const nonFinal = await sink.nonFinalEpochs(account.name, resource);
    const stamp = toIsoMicros(ctx.clock() / 1000);
    for (const window of planSeal(await sink.listWindows(scope), nonFinal, now, ctx.crawl.overlapSeconds)) {
      await sink.markWindow(window, 'sealed', null, stamp);
      sealed++;
    }
  }
  return { ...outcome, refresh, sealed };
}
