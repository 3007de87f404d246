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
 * over all accounts, parsed and normalized. One account's streams hold no
 * more than `crawl.concurrency` (64) anyway: the bound is for many accounts
 * in one process. With got as the HTTP client, forty accounts' backfill into
 * SQLite with the limit lifted peaked at 392-421 MB with 96 and 378-383 MB
 * with 64, at the same items/s. With undici's pool, a sixth less CPU an item,
 * 64 held the slowest of forty accounts at 10 rps to 0.91-0.94 of its limit
 * into SQLite and 0.84-0.85 into Postgres; 128 to 0.93-0.94 and 0.93-0.94, at
 * 174-197 MB, and 11,030 items/s lifted into SQLite at 224 MB (10,302 at 201
 * MB with 64) (`npm run bench -- accounts`, docs/benchmarks.md).
 */
export const HELD_PAGES = 128;

/**
 * The requests in flight the process allows beyond `heldLimit`, as a multiple
 * of what the pages arriving need (Little's law: each page that arrived in
 * the last second stands for one cycle of its stream, its crawl's least
 * round trip plus its bucket's spacing). A stream asks for its next page only
 * while the streams not waiting here, each with a request in flight or a
 * page in hand, are within `heldLimit` plus this multiple. Where the service
 * sets the pace the bound stays ahead of the streams and doubles with them
 * each round trip, up to what the buckets allow; where the writer sets it the
 * service answers fast, and the bound stays near `heldLimit`. The least
 * round trip, not the latest: a page that waited for a busy event loop would
 * count its wait, and the bound would grow with the queue it allows. Without
 * the bound, the pages held were bounded only by the streams: forty accounts
 * with the limit lifted and a cap of 1024 grew 822 streams and held 705 pages
 * at once. Four times allowed that 268 MB (229 at twice, 227-230 with the
 * cap of 256 before); once held forty accounts at a 1 s round trip to 0.75
 * of their limit (0.94 at twice).
 */
export const IN_FLIGHT_HEADROOM = 2;

/** How far back the pages arriving, and their round trips, are counted (ms). */
const ARRIVALS_MS = 1_000;
/** How long inFlightBound is taken as it was last worked out (ms): it is asked for every page and every poll. */
const BOUND_REFRESH_MS = 20;

/**
 * The request streams of every crawl in the process, per account, and the
 * pages they hold. A stream waiting on the service holds next to nothing, so
 * the streams may be many (`crawl.processConcurrency`, what high latency
 * times many accounts needs; `crawl.concurrency` still caps each account);
 * a page is held from its response to its commit, and while `heldLimit` are
 * held no stream sends its next request and none is added. The streams
 * asking at once are bounded too (IN_FLIGHT_HEADROOM), so the memory is
 * bounded when the writer is what sets the pace, and latency is not when it
 * is the service.
 */
export class StreamBudget {
  readonly #limit: number;
  readonly #heldLimit: number;
  readonly #clock: () => number;
  readonly #streams = new Map<string, number>();
  #total = 0;
  #held = 0;
  /** The pages that arrived in the last ARRIVALS_MS: when, and their stream's cycle (ms). */
  #arrivals: Array<{ at: number; cycleMs: number }> = [];
  #waiting: Array<() => void> = [];
  /** inFlightBound as last worked out, and when. */
  #bound = 0;
  /** When the first page arrived (the clock's ms), or Infinity before. */
  #firstArrival = Number.POSITIVE_INFINITY;
  #boundAt = Number.NEGATIVE_INFINITY;

  constructor(limit: number, heldLimit = HELD_PAGES, clock: () => number = () => performance.now()) {
    this.#limit = limit;
    this.#heldLimit = Math.max(1, Math.min(limit, heldLimit));
    this.#clock = clock;
  }

  /**
   * Whether `account` may add a stream now: mayAddStream, fewer than
   * `heldLimit` pages held, and the streams asking under inFlightBound.
   */
  mayAdd(account: string): boolean {
    const own = this.#streams.get(account) ?? 0;
    if (own > 0 && (this.#held >= this.#heldLimit || this.#asking() >= this.inFlightBound())) return false;
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

  /**
   * A page arrived, its stream's cycle `cycleMs` (the crawl's least round trip, RoundTrip.leastMs, plus its
   * bucket's spacing): held until the returned release is called (once or more: it releases once).
   */
  hold(cycleMs = 0): () => void {
    this.#held++;
    const now = this.#clock();
    this.#arrivals.push({ at: now, cycleMs });
    if (!Number.isFinite(this.#firstArrival)) {
      this.#firstArrival = now;
      this.#boundAt = Number.NEGATIVE_INFINITY;
    }
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
   * Most streams that may ask at once (a request in flight or a page in
   * hand): `heldLimit`, plus IN_FLIGHT_HEADROOM times the cycles of the pages
   * that arrived in the last second, summed, over a second. Before the
   * first page, the cap: the round trip is not known yet, and the ramp
   * (ramp.ts) grows each crawl by its bucket's slots until then.
   */
  inFlightBound(): number {
    const now = this.#clock();
    if (now - this.#boundAt < BOUND_REFRESH_MS) return this.#bound;
    const since = now - ARRIVALS_MS;
    let drop = 0;
    while (drop < this.#arrivals.length && this.#arrivals[drop]!.at < since) drop++;
    if (drop > 0) this.#arrivals.splice(0, drop);
    // Little's law over the accounts: each page that arrived stands for its cycle's worth of a stream asking.
    let inFlightMs = 0;
    for (const arrival of this.#arrivals) inFlightMs += arrival.cycleMs;
    // Over the time pages have been arriving, up to ARRIVALS_MS: in the first second, the second so far.
    const spanMs = Math.min(ARRIVALS_MS, Math.max(BOUND_REFRESH_MS, now - this.#firstArrival));
    this.#bound = Number.isFinite(this.#firstArrival)
      ? this.#heldLimit + Math.ceil((IN_FLIGHT_HEADROOM * inFlightMs) / spanMs)
      : this.#limit;
    this.#boundAt = now;
    return this.#bound;
  }

  /** Streams asking now: those not waiting here for room. */
  #asking(): number {
    return this.#total - this.#waiting.length;
  }

  /**
   * Lets as many waiting streams send as pages may still be held and streams
   * may ask. One that then holds nothing (it ended, or its request failed)
   * ends its stream, which wakes the next, so none waits on a release that
   * will not come.
   */
  #wake(): void {
    if (this.#waiting.length === 0) return;
    const asking = this.#asking();
    const room = Math.min(this.#heldLimit - this.#held, this.inFlightBound() - asking);
    for (let i = 0; i < room && this.#waiting.length > 0; i++) this.#waiting.shift()!();
  }

  /**
   * Resolves when a stream may send its next request: at once while fewer
   * than `heldLimit` pages are held and the streams asking, this one among
   * them, are within inFlightBound. Not in turn: a stream that comes when
   * there is room goes before those waiting. Served strictly in turn, forty
   * accounts at 10 requests/s got 0.941-0.955 of their limit (three runs)
   * against 0.950-0.954.
   */
  room(): Promise<void> | undefined {
    if (this.#held < this.#heldLimit && this.#asking() <= this.inFlightBound()) return undefined;
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Streams open now, over all accounts. */
  get total(): number {
    return this.#total;
  }

  /** Streams asking now (a request in flight or a page in hand), over all accounts: those not waiting for room. */
  get asking(): number {
    return this.#asking();
  }

  /** Pages held now, over all accounts. */
  get held(): number {
    return this.#held;
  }
}
