import type { BucketRoom } from './room-watch.js';

/** When a page was asked for, and how long its token was expected to take. */
export interface Asked {
  at: number;
  waitMs: number;
}

/** Page round trips kept: the estimate looks back over these. */
const KEPT = 16;

/**
 * The service's round trip as the crawl sees it: milliseconds from asking
 * for a page to having it, less the wait the bucket expected for its token.
 * The estimate is the least of the last pages: a page that waited longer
 * than expected (a busy event loop, requests of a higher priority) says
 * nothing about the service's latency.
 */
export class RoundTrip {
  readonly #bucket: Pick<BucketRoom, 'waitMs'> | undefined;
  readonly #clock: () => number;
  #last: number[] = [];

  constructor(bucket: Pick<BucketRoom, 'waitMs'> | undefined, clock: () => number) {
    this.#bucket = bucket;
    this.#clock = clock;
  }

  asking(): Asked {
    return { at: this.#clock(), waitMs: this.#bucket?.waitMs ?? 0 };
  }

  answered(asked: Asked): void {
    this.#last.push(Math.max(0, this.#clock() - asked.at - asked.waitMs));
    if (this.#last.length > KEPT) this.#last.shift();
  }

  /** Milliseconds, or null before the first page. */
  get ms(): number | null {
    return this.#last.length === 0 ? null : Math.min(...this.#last);
  }
}
