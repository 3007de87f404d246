/** Page round trips kept: the estimate looks back over these. */
const KEPT = 16;

/**
 * The service's round trip as the crawl sees it: milliseconds from a page's
 * request leaving (its token taken) to having the page. The estimate is the
 * least of the last pages: one slowed by a busy event loop says nothing about
 * the service's latency. Timed from the token, not from asking less the wait
 * the bucket expected: with the streams served by their rests (stream-priority.ts)
 * a request may overtake the queue, and that estimate fell to near nothing.
 */
export class RoundTrip {
  readonly #clock: () => number;
  #last: number[] = [];
  #least = Number.POSITIVE_INFINITY;

  constructor(clock: () => number) {
    this.#clock = clock;
  }

  /** The page whose request left at `sentAt` (the clock's ms) is back. */
  answered(sentAt: number): void {
    if (!Number.isFinite(sentAt)) return;
    const ms = Math.max(0, this.#clock() - sentAt);
    this.#last.push(ms);
    this.#least = Math.min(this.#least, ms);
    if (this.#last.length > KEPT) this.#last.shift();
  }

  /**
   * The least round trip of the crawl so far (ms), or null before the first
   * page: the service's own latency, before any queue in this process (pages
   * waiting for a busy event loop) was added to it.
   */
  get leastMs(): number | null {
    return Number.isFinite(this.#least) ? this.#least : null;
  }

  /** Milliseconds, or null before the first page. */
  get ms(): number | null {
    return this.#last.length === 0 ? null : Math.min(...this.#last);
  }
}
