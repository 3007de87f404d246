import type { CrawlEvent, StreamCap } from './crawl-deps.js';
import type { RoomWatch } from './room-watch.js';
import type { RoundTrip } from './round-trip.js';
import type { StreamBudget } from './stream-budget.js';

/**
 * The bounds on a crawl's streams: the account's own (`crawl.concurrency`)
 * and its share of the process's (`crawl.processConcurrency`). Streams are
 * added only while the bucket has room, so a bound that stops one while the
 * bucket has room is holding the request rate below the limit: at 10
 * requests/s, a round trip of 3 s needs some 30 streams. The crawl says so
 * once, for the operator to raise the setting.
 */
export class StreamCaps {
  readonly #account: string;
  readonly #concurrency: number;
  readonly #budget: Pick<StreamBudget, 'atCap'> | undefined;
  readonly #room: Pick<RoomWatch, 'hasRoom'>;
  readonly #roundTrip: Pick<RoundTrip, 'ms'>;
  readonly #onEvent: ((event: CrawlEvent) => void) | undefined;
  #reported = false;

  constructor(options: {
    account: string;
    concurrency: number;
    budget: Pick<StreamBudget, 'atCap'> | undefined;
    room: Pick<RoomWatch, 'hasRoom'>;
    roundTrip: Pick<RoundTrip, 'ms'>;
    onEvent: ((event: CrawlEvent) => void) | undefined;
  }) {
    this.#account = options.account;
    this.#concurrency = options.concurrency;
    this.#budget = options.budget;
    this.#room = options.room;
    this.#roundTrip = options.roundTrip;
    this.#onEvent = options.onEvent;
  }

  /** The setting that keeps a crawl of `streams` streams from adding one now, or null. */
  on(streams: number): StreamCap | null {
    if (streams >= this.#concurrency) return 'crawl.concurrency';
    return this.#budget?.atCap(this.#account) === true ? 'crawl.processConcurrency' : null;
  }

  /**
   * `cap` stopped a stream the bucket had room for: said once per crawl (a `streams-capped` event), once a page
   * is back, so that the round trip that asks for the streams is known.
   */
  held(cap: StreamCap, streams: number): void {
    const roundTripMs = this.#roundTrip.ms;
    if (this.#reported || roundTripMs === null || !this.#room.hasRoom()) return;
    this.#reported = true;
    this.#onEvent?.({ type: 'streams-capped', account: this.#account, streams, cap, roundTripMs });
  }
}
