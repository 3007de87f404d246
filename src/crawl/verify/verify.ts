import PQueue from 'p-queue';
import type { ResourceName } from '../../config/config.js';
import type { NormalizedSession } from '../../normalize/rows.js';
import { toIsoMicros } from '../../normalize/time.js';
import type { WindowState } from '../../store/sink.js';
import type { VerifyFinding } from '../../store/sink.js';
import type { CrawlAccount, CrawlContext } from '../engine/crawl-deps.js';
import { stopsTheRun } from '../engine/error-scope.js';
import { RequestBudget, type BudgetShare } from './request-budget.js';
import { PRIORITY } from '../../config/constants.js';
import { diffWindow } from './verify-diff.js';
import { planSample, type SampleCandidate } from './verify-sample.js';
import { requestRange } from '../engine/windows.js';

/** Below every crawl: a verify never holds back fresh data, refreshes or a backfill in the account's bucket. */
export const VERIFY_PRIORITY = PRIORITY.backfill - 1;

/** Sessions a search page holds at most (the crawl asks for the same). */
const PAGE_SIZE = 25;

export interface VerifyOptions {
  resources: readonly ResourceName[];
  /** Most requests the whole verify may send. */
  budget: number;
  /** Picks the sample: the same seed over the same stored windows picks the same windows. */
  seed: string;
  /** Only windows that intersect [from, to] (epoch seconds). @default the whole stored history */
  from?: number | undefined;
  to?: number | undefined;
  /** Merge what was fetched, mark what is gone, reopen drifted windows. @default false */
  repair?: boolean;
  /** The run's id, on every finding. */
  runId: string;
}

/**
 * A window whose pages did not all fit in the budget: what was paged was compared, no-longer-returned sessions were not
 * looked for.
 */
export interface PartialWindow {
  account: string;
  resource: ResourceName;
  windowStart: number;
  pagesPaged: number;
  /** Pages the stored sessions say it takes. */
  pagesEstimated: number;
}

export interface VerifyOutcome {
  /** Stored windows the sample was drawn from. */
  candidates: number;
  windowsChecked: number;
  /** Of those checked, how many were sealed. */
  sealedChecked: number;
  partial: PartialWindow[];
  failed: Array<{ account: string; resource: ResourceName; windowStart: number; error: string }>;
  sessionsChecked: number;
  findings: VerifyFinding[];
  /** Null without repair. */
  repaired: number | null;
  /** What stopped the run (the target, the token): the windows checked before it are in the figures above. */
  fatal?: unknown;
}

interface Candidate extends SampleCandidate {
  account: CrawlAccount;
  resource: ResourceName;
  window: WindowState;
  /** The range the last complete pass covered: [window_start, min(window_end, synced_to)). */
  to: number;
}

/**
 * Pages a sample of stored windows again within a request budget and
 * compares what the service returns with what the target stores (see
 * verify-diff.ts); with `repair`, fixes what it found through the store's
 * merge. Writes nothing else: only its findings (and, repairing, the
 * sessions and windows it fixed). Windows are those a complete pass has
 * covered (done, sealed, or reopened and failed since); a window in the
 * middle of a pass is left to the crawl.
 */
export async function verify(ctx: CrawlContext, options: VerifyOptions): Promise<VerifyOutcome> {
  const candidates = await listCandidates(ctx, options);
  const picks = planSample(candidates, options.budget, options.seed);
  const budget = new RequestBudget(options.budget, ctx.tally);
  const outcome: VerifyOutcome = {
    candidates: candidates.length,
    windowsChecked: 0,
    sealedChecked: 0,
    partial: [],
    failed: [],
    sessionsChecked: 0,
    findings: [],
    repaired: options.repair === true ? 0 : null,
  };
  let nextSeq = 1;
  const queue = new PQueue({ concurrency: Math.max(1, ctx.crawl.concurrency) });
  const shares = picks.map((p) => budget.share(p.allowance));
  await queue.addAll(
    picks.map((pick, i) => async () => {
      if (ctx.signal.aborted || outcome.fatal !== undefined) return;
      const c = pick.candidate;
      try {
        const paged = await pageWindow(ctx, c, budget, shares[i]!);
        budget.release(shares[i]!);
        if (paged === null) return;
        const stored = await ctx.sink.storedSessions(c.account.name, c.resource, c.window.windowStart, c.to);
        const diff = diffWindow({
          account: c.account.name,
          resource: c.resource,
          windowStart: c.window.windowStart,
          from: c.window.windowStart,
          to: c.to,
          returned: paged.sessions,
          stored,
          complete: paged.complete,
          pagedSince: paged.since,
        });
        const firstSeq = nextSeq;
        nextSeq += diff.findings.length;
        const now = toIsoMicros(ctx.clock() / 1000);
        const repair =
          options.repair === true
            ? {
                key: c.window,
                sessions: diff.drifted,
                rewrite: diff.changed,
                notReturned: diff.notReturned,
                pagedSince: paged.since,
                now,
              }
            : undefined;
        const { repaired } = await ctx.sink.recordCheck({
          runId: options.runId,
          firstSeq,
          findings: diff.findings,
          repair,
        });
        if (outcome.repaired !== null) outcome.repaired += repaired;
        outcome.findings.push(...diff.findings);
        outcome.sessionsChecked += diff.sessionsChecked;
        if (paged.complete) {
          outcome.windowsChecked++;
          if (c.window.status === 'sealed') outcome.sealedChecked++;
        } else {
          outcome.partial.push({
            account: c.account.name,
            resource: c.resource,
            windowStart: c.window.windowStart,
            pagesPaged: paged.pages,
            pagesEstimated: c.cost,
          });
        }
      } catch (error) {
        budget.release(shares[i]!);
        if (stopsTheRun(error)) outcome.fatal ??= error;
        else
          outcome.failed.push({
            account: c.account.name,
            resource: c.resource,
            windowStart: c.window.windowStart,
            error: error instanceof Error ? error.message : String(error),
          });
      }
    }),
  );
  outcome.findings.sort(
    (a, b) => a.windowStart - b.windowStart || (a.serviceId < b.serviceId ? -1 : a.serviceId > b.serviceId ? 1 : 0),
  );
  return outcome;
}

/** Every stored window of the run's accounts and resources that a complete pass has covered, with its cost. */
async function listCandidates(ctx: CrawlContext, options: VerifyOptions): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (const account of ctx.accounts) {
    for (const resource of options.resources) {
      const query = {
        account: account.name,
        resource,
        apiVersion: account.client.apiVersion,
        ...(options.from !== undefined ? { from: options.from } : {}),
        ...(options.to !== undefined ? { to: options.to + 1 } : {}),
      };
      const stored = await ctx.sink.storedPerWindow(query);
      for (const window of await ctx.sink.listWindows(query)) {
        if (window.status === 'running' || window.syncedTo === null) continue;
        const to = Math.min(window.windowEnd, window.syncedTo);
        if (to <= window.windowStart) continue;
        out.push({
          id: `${account.name}/${resource}/${window.apiVersion}/${window.windowStart}`,
          start: window.windowStart,
          cost: Math.max(1, Math.ceil((stored.get(window.windowStart) ?? 0) / PAGE_SIZE)),
          account,
          resource,
          window,
          to,
        });
      }
    }
  }
  return out;
}

interface Paged {
  sessions: NormalizedSession[];
  pages: number;
  complete: boolean;
  /** When the first page was asked for. */
  since: string;
}

/**
 * Pages one window while the budget allows, newest first as the service
 * answers; null when the run was stopped meanwhile (nothing of it is
 * recorded: the next verify samples again).
 */
async function pageWindow(
  ctx: CrawlContext,
  c: Candidate,
  budget: RequestBudget,
  share: BudgetShare,
): Promise<Paged | null> {
  const since = toIsoMicros(ctx.clock() / 1000);
  const client = c.account.client;
  const pages = client.pages(
    c.resource,
    { range: requestRange(c.window.windowStart, c.to), cursor: null, limit: PAGE_SIZE },
    { priority: VERIFY_PRIORITY, tally: ctx.tally },
  );
  const iterator = pages[Symbol.asyncIterator]();
  const sessions: NormalizedSession[] = [];
  let count = 0;
  try {
    for (;;) {
      if (ctx.signal.aborted) return null;
      if (!budget.take(share)) return { sessions, pages: count, complete: false, since };
      const next = await iterator.next();
      if (next.done === true) return { sessions, pages: count, complete: true, since };
      count++;
      const page = next.value;
      const observedAt = toIsoMicros(ctx.clock() / 1000);
      const batch = ctx.normalize(
        c.resource,
        client.apiVersion,
        page.items,
        { account: c.account.name, source: 'search', observedAt, responseWarnings: page.warnings },
        page.itemTexts,
      );
      sessions.push(...batch.sessions);
      if (page.nextCursor === null) return { sessions, pages: count, complete: true, since };
    }
  } finally {
    await iterator.return?.();
  }
}
