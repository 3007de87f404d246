import type { RequestTally } from '../../api/service-client.js';

/** One window's share of a RequestBudget. */
export interface BudgetShare {
  /** Pages reserved for it when the sample was planned. */
  reserved: number;
  /** Pages it has asked for. */
  used: number;
}

/**
 * The requests a run may still send, shared by windows paged at once. Each
 * window pages freely within what it reserved; a page beyond that (the window
 * holds more than the target knew) comes only out of what no window
 * reserved, so one window never eats another's pages. The run's tally is the
 * last word: once its attempts (retries included) reach the limit, no page is
 * asked for any more. A page in flight is never cut off, so its retries can
 * carry the tally past the limit by those retries alone.
 */
export class RequestBudget {
  readonly #limit: number;
  readonly #tally: RequestTally;
  #reserved = 0;
  #extra = 0;

  constructor(limit: number, tally: RequestTally) {
    this.#limit = limit;
    this.#tally = tally;
  }

  /** A share of `pages` for a window (the planner keeps the sum within the limit). */
  share(pages: number): BudgetShare {
    this.#reserved += pages;
    return { reserved: pages, used: 0 };
  }

  /** Whether the window may ask for one more page; counts it when so. */
  take(share: BudgetShare): boolean {
    if (this.#tally.requests >= this.#limit) return false;
    if (share.used < share.reserved) {
      share.used++;
      return true;
    }
    if (this.#reserved + this.#extra >= this.#limit) return false;
    this.#extra++;
    share.used++;
    return true;
  }

  /** The window is done: what it reserved and did not use is free for the others. */
  release(share: BudgetShare): void {
    const unused = Math.max(0, share.reserved - share.used);
    this.#reserved -= unused;
    share.reserved -= unused;
  }
}
