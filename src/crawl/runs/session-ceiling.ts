import { PAGE_SIZE, type ResourceName } from '../../config/constants.js';
import { UserError } from '../../errors.js';
import type { CrawlContext, CrawlEvent } from '../engine/crawl-deps.js';

/** Pages a backfill takes before its estimate is trusted: the first windows' densities vary the most. */
const TRUSTED_AFTER_PAGES = 40;

/**
 * The sessions a backfill will leave its target holding, as its pages tell:
 * what the target held before, what the run wrote, and what each account's
 * crawl expects to page still (`pagesLeft`, from the densities of the windows
 * paged so far). For a target with a ceiling (DuckDB, store.duckdbMaxSessions),
 * so that a history too large for it fails in the first pages, not hours in.
 */
export class SessionCeiling {
  readonly limit: number;
  readonly #stored: number;
  readonly #paged = new Map<string, number>();
  readonly #left = new Map<string, number | null>();
  #pages = 0;

  constructor(limit: number, stored: number) {
    this.limit = limit;
    this.#stored = stored;
  }

  /** The estimate after `event`, once it is past the limit and enough pages back it; else null. */
  exceededBy(event: CrawlEvent): number | null {
    if (event.type !== 'page') return null;
    this.#pages++;
    // Written, not paged: a page of sessions stored already (a refresh, an overlap) adds none.
    this.#paged.set(event.account, (this.#paged.get(event.account) ?? 0) + event.written);
    this.#left.set(event.account, event.pagesLeft);
    if (this.#pages < TRUSTED_AFTER_PAGES) return null;
    let estimate = this.#stored;
    for (const items of this.#paged.values()) estimate += items;
    for (const pages of this.#left.values()) {
      if (pages === null) return null;
      estimate += pages * PAGE_SIZE;
    }
    return estimate > this.limit ? Math.round(estimate) : null;
  }
}

/** A crawl context whose crawl stops once its pages estimate a history past `maxSessions`, and what it found. */
export interface CeilingWatch {
  ctx: CrawlContext;
  /** The error the run fails with when the crawl was stopped for that; undefined when it was not. */
  exceeded(): UserError | undefined;
}

/**
 * Watches the crawl of `ctx` against the target's ceiling (RunDeps.maxSessions;
 * none: `ctx` as it is): its first pages that estimate more sessions than the
 * target may hold stop the crawl, after the pages in flight committed.
 */
export async function watchCeiling(
  ctx: CrawlContext,
  maxSessions: number | undefined,
  resources: readonly ResourceName[],
): Promise<CeilingWatch> {
  if (maxSessions === undefined) return { ctx, exceeded: () => undefined };
  const ceiling = new SessionCeiling(maxSessions, await storedSessions(ctx, resources));
  const stop = new AbortController();
  let found: number | null = null;
  const { onEvent } = ctx;
  return {
    ctx: {
      ...ctx,
      signal: AbortSignal.any([ctx.signal, stop.signal]),
      onEvent: (event) => {
        onEvent?.(event);
        if (found !== null) return;
        found = ceiling.exceededBy(event);
        if (found !== null) stop.abort();
      },
    },
    exceeded: () =>
      found === null || ctx.signal.aborted
        ? undefined
        : new UserError(
            'HISTORY_TOO_LARGE',
            `this history holds about ${found.toLocaleString('en')} sessions, past the ` +
              `${maxSessions.toLocaleString('en')} a DuckDB target is let grow to (store.duckdbMaxSessions): ` +
              `backfill into sqlite: or postgres:// and make the DuckDB file with ivsync export --to duckdb:, or ` +
              `set store.duckdbMaxSessions to 0 to go on`,
          ),
  };
}

/** The sessions the windows of the run's accounts and resources counted at their last complete pass. */
async function storedSessions(ctx: CrawlContext, resources: readonly ResourceName[]): Promise<number> {
  let stored = 0;
  for (const account of ctx.accounts)
    for (const resource of resources) {
      const scope = { account: account.name, resource, apiVersion: account.client.apiVersion };
      for (const w of await ctx.sink.listWindows({ ...scope, status: ['done', 'sealed'] })) stored += w.items;
    }
  return stored;
}
