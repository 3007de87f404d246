import type { BucketRoom } from './room-watch.js';

/**
 * The ramp's shortest step (ms). With the limit lifted, a slot lasts
 * microseconds, and forty accounts grew 822 streams before their first pages
 * came back, most of whose pages then waited on the writer. Below 100
 * requests a second the slot is longer and this changes nothing.
 */
export const RAMP_STEP_MS = 10;

/**
 * The crawl's first round trip: until a page comes back, each slot of the
 * bucket that finds no request waiting gets a new stream, at the slot.
 *
 * Before any answer the latency is unknown, and every slot that passes
 * without one says it is longer than the streams so far can cover. The room
 * watch (room-watch.ts) learns that from capacity gone unused, a tenth of a
 * slot at least, seen by a poll every quarter slot: each stream of the ramp
 * came 25 ms late on average, and a late start moves the bucket's grid with
 * it (start-schedule.ts), so at 1 s the first ten requests took 1.2 s instead
 * of 0.9. Here a timer is set for the moment the bucket's next token is free;
 * if nothing waits for it then and no page is back, the crawl grows at once.
 * The first answer ends the ramp: from then on the round trip is known and
 * the room watch and the cut decide.
 */
export class Ramp {
  readonly #bucket: Pick<BucketRoom, 'waitMs' | 'spacingMs'>;
  readonly #answered: () => boolean;
  readonly #grow: () => Promise<boolean>;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  /**
   * @param answered whether a page of the crawl has come back
   * @param grow adds a stream, resolving whether it could (false: none can be added, the ramp ends)
   */
  constructor(bucket: Pick<BucketRoom, 'waitMs' | 'spacingMs'>, answered: () => boolean, grow: () => Promise<boolean>) {
    this.#bucket = bucket;
    this.#answered = answered;
    this.#grow = grow;
  }

  /** Watches from now: the first check is when the bucket's next token is free. */
  start(): void {
    this.#arm(this.#bucket.waitMs);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #arm(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#slot(), Math.max(1, ms));
  }

  async #slot(): Promise<void> {
    if (this.#stopped || this.#answered()) return;
    // A request waits, or the token is not free yet: look again when it is.
    const waitMs = this.#bucket.waitMs;
    if (waitMs > 0) return this.#arm(waitMs);
    if (!(await this.#grow())) return;
    // The new stream's request takes this slot: the next is a spacing on.
    this.#arm(Math.max(RAMP_STEP_MS, this.#bucket.spacingMs));
  }
}

/**
 * Grows the crawl when the bucket shows room, from now until the returned
 * function is called: a poll of the room watch every `pollMs`, and the ramp
 * until the first page is back. Without a bucket, neither.
 */
export function watchForRoom(
  bucket: Pick<BucketRoom, 'waitMs' | 'spacingMs'> | undefined,
  pollMs: number | null,
  crawl: { answered: () => boolean; grow: (atSlot: boolean) => Promise<boolean> },
): () => void {
  const timer = pollMs === null ? undefined : setInterval(() => void crawl.grow(false), pollMs);
  const ramp = bucket && new Ramp(bucket, crawl.answered, () => crawl.grow(true));
  ramp?.start();
  return () => {
    ramp?.stop();
    clearInterval(timer);
  };
}
