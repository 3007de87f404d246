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
 * The request streams of every crawl in the process, per account. Each
 * stream holds at most one page between its request and its commit, so this
 * bounds the pages in flight, and with them the memory, across all accounts
 * (`crawl.processConcurrency`); `crawl.concurrency` still caps each account.
 */
export class StreamBudget {
  readonly #limit: number;
  readonly #streams = new Map<string, number>();
  #total = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Whether `account` may add a stream now (mayAddStream). */
  mayAdd(account: string): boolean {
    const own = this.#streams.get(account) ?? 0;
    const accounts = this.#streams.size + (own === 0 ? 1 : 0);
    return mayAddStream({ limit: this.#limit, total: this.#total, own, accounts });
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
  }

  /** Streams open now, over all accounts. */
  get total(): number {
    return this.#total;
  }
}
