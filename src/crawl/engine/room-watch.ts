/** The part of an account's token bucket (RateLimiter) that tells a crawl whether it can use more. */
export interface BucketRoom {
  /** Milliseconds, summed, during which a token was free and no request waited for it. */
  readonly idleMs: number;
  /** Milliseconds between two request starts (1000 / rate). */
  readonly spacingMs: number;
  /** About how long a request asked for now waits for its token. */
  readonly waitMs: number;
}

/**
 * Whether the bucket has room for another request stream: it left capacity
 * unused lately, so the requests in flight and waiting cannot keep it full.
 * Only what went unused since the crawl last added a stream, and within the
 * last few slots, counts: an earlier shortfall was already answered, and a
 * stray gap long ago (a slow commit) says nothing about now.
 */
export class RoomWatch {
  readonly #bucket: BucketRoom | undefined;
  readonly #clock: () => number;
  /** Idle total when the crawl last grew. */
  #mark = 0;
  /** (time, idle total) samples of the last `HORIZON_SLOTS` slots. */
  #samples: Array<{ at: number; idle: number }> = [];

  /**
   * @param bucket the account's bucket; without one every check says "room", as
   *   when workers were counted instead of tokens.
   */
  constructor(bucket: BucketRoom | undefined, clock: () => number) {
    this.#bucket = bucket;
    this.#clock = clock;
    this.#mark = bucket?.idleMs ?? 0;
  }

  /** How often the crawl should look (ms), or null when there is no bucket to watch. */
  get pollMs(): number | null {
    return this.#bucket ? Math.max(5, this.#bucket.spacingMs / 4) : null;
  }

  /** True when a tenth of a slot or more went unused lately (1% of the last slots). */
  hasRoom(): boolean {
    const bucket = this.#bucket;
    if (!bucket) return true;
    const now = this.#clock();
    const idle = bucket.idleMs;
    const horizon = now - HORIZON_SLOTS * bucket.spacingMs;
    while (this.#samples.length > 0 && this.#samples[0]!.at < horizon) this.#samples.shift();
    const since = Math.max(this.#mark, this.#samples[0]?.idle ?? this.#mark);
    this.#samples.push({ at: now, idle });
    return idle - since >= bucket.spacingMs * ROOM_SHARE;
  }

  /** The crawl added a stream: what went unused before it no longer counts. */
  grew(): void {
    if (this.#bucket) this.#mark = this.#bucket.idleMs;
  }
}

/** How far back unused capacity still counts, in slots (at 10/s: 1 s). */
const HORIZON_SLOTS = 10;
/**
 * Unused share of a slot that calls for another stream. A stream costs about
 * half a page (its last page is partial), an unused slot a whole request's
 * time: a small shortfall is already worth answering.
 */
const ROOM_SHARE = 0.1;
