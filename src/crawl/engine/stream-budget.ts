/**
 * Whether an account may add a request stream under the process-wide cap.
 * An account without a stream may always start one: every account pages,
 * however many share the process. Beyond that, streams stay under the cap and
 * each account under an equal share of it among the accounts paging now, so
 * that one account alone may use the whole cap and forty share it.
 */
export function mayAddStream(s: { limit: number; total: number; own: number; accounts: number }): boolean {
  if (s.own === 0) return true;
  if (s.total >= s.limit) return false;
  return s.own < Math.ceil(s.limit / Math.max(1, s.accounts));
}

/**
 * Most pages the process holds between their response and their commit,
 * over all accounts, parsed and normalized. Forty accounts' backfill into
 * SQLite with the limit lifted (the writer sets the pace) peaked at 392-421
 * MB with 96, and 378-383 MB with 64 at the same items/s; at 10 rps each,
 * 348-363 and 341-344 MB (`npm run bench -- accounts`).
 */
export const HELD_PAGES = 64;

/**
 * The request streams of every crawl in the process, per account, and the
 * pages they hold. A stream waiting on the service holds next to nothing, so
 * the streams may be many (`crawl.processConcurrency`, what high latency
 * times many accounts needs; `crawl.concurrency` still caps each account);
 * a page is held from its response to its commit, and while `heldLimit` are
 * held no stream sends its next request and none is added. So the memory is
 * bounded when the writer is what sets the pace, and latency is not when it
 * is the service.
 */
export class StreamBudget {
  readonly #limit: number;
  readonly #heldLimit: number;
  readonly #streams = new Map<string, number>();
  #total = 0;
  #held = 0;
  #waiting: Array<() => void> = [];

  constructor(limit: number, heldLimit = HELD_PAGES) {
    this.#limit = limit;
    this.#heldLimit = Math.max(1, Math.min(limit, heldLimit));
  }

  /** Whether `account` may add a stream now (mayAddStream, and fewer than `heldLimit` pages held). */
  mayAdd(account: string): boolean {
    const own = this.#streams.get(account) ?? 0;
    if (own > 0 && this.#held >= this.#heldLimit) return false;
    const accounts = this.#streams.size + (own === 0 ? 1 : 0);
    return mayAddStream({ limit: this.#limit, total: this.#total, own, accounts });
  }

  /** Whether the cap itself (not the pages held) keeps `account` from adding a stream. */
  atCap(account: string): boolean {
    const own = this.#streams.get(account) ?? 0;
    const accounts = this.#streams.size + (own === 0 ? 1 : 0);
    return !mayAddStream({ limit: this.#limit, total: this.#total, own, accounts });
  }

  /** A stream of `account` started. */
  add(account: string): void {
    this.#streams.set(account, (this.#streams.get(account) ?? 0) + 1);
    this.#total++;
  }

  /** A stream of `account` ended. */
  remove(account: string): void {
    const own = (this.#streams.get(account) ?? 0) - 1;
    if (own > 0) this.#streams.set(account, own);
    else this.#streams.delete(account);
    this.#total = Math.max(0, this.#total - 1);
    this.#wake();
  }

  /** A page arrived: held until the returned release is called (once or more: it releases once). */
  hold(): () => void {
    this.#held++;
    let held = true;
    return () => {
      if (held) this.release();
      held = false;
    };
  }

  /** A held page was committed (or given up): a waiting stream may send, its page to take the place. */
  release(): void {
    this.#held = Math.max(0, this.#held - 1);
    this.#wake();
  }

  /**
   * Lets as many waiting streams send as pages may still be held. One that
   * then holds nothing (it ended, or its request failed) ends its stream,
   * which wakes the next, so none waits on a release that will not come.
   */
  #wake(): void {
    for (let room = this.#heldLimit - this.#held; room > 0 && this.#waiting.length > 0; room--) {
      this.#waiting.shift()!();
    }
  }

  /** Resolves when a stream may send its next request: at once while fewer than `heldLimit` pages are held. */
  room(): Promise<void> | undefined {
    if (this.#held < this.#heldLimit) return undefined;
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Streams open now, over all accounts. */
  get total(): number {
    return this.#total;
  }

  /** Pages held now, over all accounts. */
  get held(): number {
    return this.#held;
  }
}
