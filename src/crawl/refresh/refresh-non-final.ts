import PQueue from 'p-queue';
import type { RequestTally } from '../../api/service-client.js';
import { PRIORITY } from '../../config/constants.js';
import type { ResourceName } from '../../config/config.js';
import type { NormalizedBatch } from '../../normalize/rows.js';
import { toIsoMicros } from '../../normalize/time.js';
import type { RefreshCheck } from '../../store/sink.js';
import { Crawler } from '../engine/crawler.js';
import type { CrawlAccount, CrawlContext } from '../engine/crawl-deps.js';
import type { PassTask } from '../engine/planner.js';
import { planCounted, RefreshPlanner } from './refresh-planner.js';
import { nextInterval, type RefreshPolicy } from './refresh-policy.js';
import { epochReach } from './repage-range.js';
import {
  DEFAULT_REFRESH_SETTINGS,
  refreshBudget,
  webhooksHealthy,
  WHOLE,
  type RefreshPart,
} from './refresh-settings.js';

export interface RefreshOutcome {
  /** Requests the refresh was allowed (see `refreshBudget`). */
  budget: number;
  repaged: number;
  fetched: number;
  gone: number;
  /** Requests the plan costs (its estimate), and what GETting every due session would have cost. */
  cost: number;
  naiveCost: number;
  /** Requests the refresh sent: its GETs and the pages of its repaged parts, each attempt (a retry too). */
  requests: number;
  /** Sessions due this run, and those left for a later run by the budget. */
  due: number;
  deferred: number;
}

export const NO_REFRESH: RefreshOutcome = Object.freeze({
  budget: 0,
  repaged: 0,
  fetched: 0,
  gone: 0,
  cost: 0,
  naiveCost: 0,
  requests: 0,
  due: 0,
  deferred: 0,
});

/**
 * Re-checks the non-final sessions the policy says are due, within the run's
 * refresh budget (its part of what the account's passes, `passRequests`,
 * left of its share), and records each check (its tier, and a back-off reset when the
 * check saw the session change) in session_refresh.
 */
export async function refreshNonFinal(
  ctx: CrawlContext,
  account: CrawlAccount,
  resource: ResourceName,
  passed: ReadonlyArray<readonly [number, number]>,
  /** Pages the run's passes of every resource of the account sent. */
  passRequests: number,
  now: number,
  /** The resource's part of the account's budget (refreshParts); the whole of it when alone. */
  part: RefreshPart = WHOLE,
): Promise<RefreshOutcome> {
  const { sink } = ctx;
  const settings = ctx.refresh ?? DEFAULT_REFRESH_SETTINGS;
  const scope = { account: account.name, resource, apiVersion: account.client.apiVersion };
  const lastDelivery = await sink.lastDeliveryAt();
  const runSeconds = account.runSeconds ?? settings.runSeconds;
  const policy: RefreshPolicy = {
    hotSeconds: settings.hotSeconds,
    runSeconds,
    maxIntervalSeconds: settings.maxIntervalSeconds,
    // The budget is the account's: its resources refresh side by side, each on its part.
    maxRequests: refreshBudget(
      { ...settings, runSeconds },
      { rate: account.bucket ? 1000 / account.bucket.spacingMs : settings.rate, part, passRequests },
    ),
    webhooksHealthy: webhooksHealthy(
      settings.webhooks,
      lastDelivery === null ? null : Date.parse(lastDelivery) / 1000,
      now,
    ),
  };
  const planner = new RefreshPlanner(await sink.listWindows(scope), passed, now, policy);
  await sink.refreshCandidates(account.name, resource, (candidate) => planner.add(candidate));
  const plan = await planCounted(planner, (w) => {
    const { from, to } = epochReach(w);
    return sink.storedEpochs(account.name, resource, from, to);
  });
  // A repaged part checks every non-final session in it, not only those the planner held.
  for (const part of plan.repage)
    await sink.refreshCandidates(account.name, resource, (c) => planner.cover(plan, c), {
      from: part.passFrom,
      to: part.passTo,
    });
  ctx.onEvent?.({
    type: 'refresh',
    account: account.name,
    resource,
    budget: policy.maxRequests,
    repaged: plan.repage.length,
    fetched: plan.get.length,
    cost: plan.cost,
    naiveCost: plan.naiveCost,
    due: plan.due,
    deferred: plan.deferred,
  });
  const checkedIds = [...plan.checked.keys()];
  const before = await sink.observedDigests(resource, checkedIds);

  // Its own count of what it sends, part of the run's: a plan's pages are an estimate, and attempts are retried.
  const tally: RequestTally = { requests: 0, within: ctx.tally };
  const tasks: Array<PassTask & { resource: ResourceName }> = plan.repage.map(
    ({ window, passFrom, passTo, resume }) => ({ window, passFrom, passTo, resume, resource }),
  );
  // Its parts as planned, never cut: a cut stream ends in a partial page more than the plan counted.
  const repaging = new Crawler(ctx, account, PRIORITY.refresh, tally, { mayCut: false }).run(tasks);

  let gone = 0;
  const fetched = new Set<string>();
  const gets = new PQueue({ concurrency: ctx.crawl.concurrency });
  const fetching = gets.addAll(
    plan.get.map((serviceId) => async () => {
      if (ctx.signal.aborted) return;
      const got = await account.client.get(resource, serviceId, { priority: PRIORITY.refresh, tally });
      const stamp = toIsoMicros(ctx.clock() / 1000);
      if (got === null) {
        gone += await sink.markMissing(account.name, resource, [serviceId], stamp);
      } else {
        const batch: NormalizedBatch = ctx.normalize(
          resource,
          account.client.apiVersion,
          [got.item],
          { account: account.name, source: 'get', observedAt: stamp, responseWarnings: got.warnings },
          got.itemText === undefined ? undefined : [got.itemText],
        );
        await sink.mergeBatch(batch);
      }
      fetched.add(serviceId);
    }),
  );
  const [repaged] = await Promise.all([repaging, fetching]);

  // A session counts as checked when its GET answered, or its window's pass completed.
  const repageDone = !repaged.interrupted && repaged.failed.length === 0;
  const asGet = new Set(plan.get);
  const done = checkedIds.filter((id) => fetched.has(id) || (repageDone && !asGet.has(id)));
  const after = await sink.observedDigests(resource, done);
  const checks: RefreshCheck[] = done.map((serviceId) => {
    const { tier, interval } = plan.checked.get(serviceId)!;
    const changed = before.get(serviceId) !== after.get(serviceId);
    return { serviceId, tier, intervalSeconds: nextInterval(interval, tier, changed, policy) };
  });
  for (const serviceId of plan.seenByPass)
    checks.push({ serviceId, tier: 'hot', intervalSeconds: nextInterval(null, 'hot', false, policy) });
  // Stamped with the run's time, so that the next run, one schedule gap later, finds its back-off of one run over.
  await sink.recordRefreshChecks(account.name, resource, checks, toIsoMicros(now));
  return {
    budget: policy.maxRequests,
    repaged: plan.repage.length,
    fetched: plan.get.length,
    gone,
    cost: plan.cost,
    naiveCost: plan.naiveCost,
    requests: tally.requests,
    due: plan.due,
    deferred: plan.deferred,
  };
}
