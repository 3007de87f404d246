/**
 * When the bucket's next start may happen: pure arithmetic over start times,
 * kept apart from the timers of `RateLimiter` so that it is tested with
 * numbers.
 *
 * Starts are due on an absolute grid, one slot per `spacingMs`. A start that a
 * busy event loop made late does not push the slots after it back: the next
 * one stays due where the grid puts it, so lateness is won back instead of
 * adding up over a long backlog (a 10/s bucket whose timers are each 0.4 ms
 * late would otherwise lose 0.4% of its budget). Two rules bound the catch-up:
 * - no start comes less than half a spacing after the one before it, so the
 *   requests still leave spread out;
 * - no `perWindow` starts fall in any `perWindow × spacingMs` (with rate 10:
 *   no eleven in any rolling second), the service's own limit.
 * A start whose slot went unused (nothing waited for it, or a pause held it)
 * begins a new grid: unused slots are not saved up.
 */
export class StartSchedule {
  readonly #spacingMs: number;
  readonly #perWindow: number;
  readonly #windowMs: number;
  /** The grid slot the next start is due at. */
  #nextSlot: number;
  /** When the last start happened; the next is at least half a spacing later. */
  #lastStart: number;
  /** The last `perWindow` start times, oldest first. */
  readonly #recent: number[] = [];

  /**
   * @param rate starts per second; the rolling-window rule uses its whole part (at least 1).
   * @param origin the time the schedule is made: the bucket is full and the first start is free at once.
   */
  constructor(rate: number, origin: number) {
    this.#spacingMs = 1000 / rate;
    this.#perWindow = Math.max(1, Math.floor(rate));
    this.#windowMs = this.#perWindow * this.#spacingMs;
    this.#nextSlot = origin;
    this.#lastStart = origin - this.#spacingMs;
  }

  /** The earliest time the next start may happen (may be in the past: then it is free now). */
  get freeAt(): number {
    const spread = this.#lastStart + this.#spacingMs / 2;
    const oldest =
      this.#recent.length === this.#perWindow ? (this.#recent[0] ?? -Infinity) + this.#windowMs : -Infinity;
    return Math.max(this.#nextSlot, spread, oldest);
  }

  /**
   * Records a start at `at`. `availableSince` is since when some task could
   * have gone but for the bucket (since when tasks have waited without a
   * break, or when a pause ended), not only the one that starts: a task of a
   * higher priority may take a slot others waited for. If that is after its
   * slot, the slot went unused and a new grid begins there: neither an idle
   * spell nor a pause is made up with a burst.
   */
  take(at: number, availableSince: number): void {
    this.#nextSlot = Math.max(this.#nextSlot, availableSince) + this.#spacingMs;
    this.#lastStart = at;
    this.#recent.push(at);
    if (this.#recent.length > this.#perWindow) this.#recent.shift();
  }
}
