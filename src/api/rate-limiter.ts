import PQueue from 'p-queue';

export interface RateLimiterOptions {
  /**
   * Request starts allowed in any rolling second. The service allows "about
   * 10 requests per second" per token and answers 429 beyond that (config `rate`).
   */
  rate: number;
  /**
   * Clock for the pause bookkeeping in `stats`.
   * @default Date.now
   */
  now?: () => number;
}

export interface RateLimiterStats {
  /** Tasks that have been given a token. */
  started: number;
  /** Milliseconds the bucket spent paused by `pauseFor` (overlapping pauses counted once). */
  pausedMs: number;
  /** Calls of `pauseFor` that paused or extended a pause. */
  pauses: number;
}

export interface ScheduleOptions {
  /**
   * Higher runs first among the tasks waiting for a token.
   * @default 0
   */
  priority?: number;
  /** Aborting it takes a task that is still waiting out of the queue, unstarted (its token not taken), rejecting with the reason. */
  signal?: AbortSignal;
}

/**
 * The token bucket of one API token. Every request of every worker that uses
 * the token passes through the same instance, so the budget holds whatever
 * runs at once (design.md, "Rules the whole program keeps").
 *
 * Built on p-queue with `strict: true`: p-queue then records the start time
 * of every task and starts another only while fewer than `intervalCap` starts
 * lie in the last `interval` ms (a sliding window: no burst at window edges).
 * Concurrency is unlimited: what is in flight is bounded by the crawl, the
 * bucket only spaces the starts.
 */
export class RateLimiter {
  readonly #queue: PQueue;
  readonly #now: () => number;
  readonly #stats: RateLimiterStats = { started: 0, pausedMs: 0, pauses: 0 };
  #pausedUntil = 0;
  #resumeTimer: NodeJS.Timeout | undefined;
  /** When the last token was taken; the next one is free `spacingMs` later. */
  #lastStart: number;
  /** Unused capacity up to the last schedule (see `idleMs`). */
  #idleMs = 0;

  /** Milliseconds between two starts: 1000 / rate. */
  readonly spacingMs: number;

  constructor(options: RateLimiterOptions) {
    const rate = options.rate;
    if (!Number.isFinite(rate) || rate <= 0) {
      throw new RangeError(`rate must be a positive number of requests per second, got ${String(rate)}`);
    }
    // One start per 1000/rate ms rather than `rate` starts per 1000 ms: the
    // two agree on every rolling second at the client, but a second's worth
    // of requests leaving together lets any jitter in their arrival (a slow
    // TLS handshake, a busy link) put up to twice the budget into one of the
    // service's rolling seconds; evenly spaced, jitter shorter than the
    // spacing adds at most one.
    // Measured in bench/rate-limiter-check.ts.
    this.spacingMs = 1000 / rate;
    this.#queue = new PQueue({ intervalCap: 1, interval: this.spacingMs, strict: true });
    this.#now = options.now ?? Date.now;
    // Counted from construction: the bucket is full and unused until the first task.
    this.#lastStart = this.#now() - this.spacingMs;
  }

  /** Runs `fn` once a token is free; the token is taken when `fn` starts. */
  schedule<T>(fn: () => Promise<T>, options: ScheduleOptions = {}): Promise<T> {
    this.#idleMs += this.#currentIdle(this.#now());
    return this.#queue.add(
      () => {
        this.#stats.started += 1;
        this.#lastStart = this.#now();
        return fn();
      },
      { priority: options.priority ?? 0, ...(options.signal !== undefined ? { signal: options.signal } : {}) },
    );
  }

  /**
   * Holds every waiting task for `ms`. A 429 is the service saying the token
   * (not one request) is over budget, so the whole bucket waits, not just the
   * request that got it. Overlapping pauses extend to the latest end.
   */
  pauseFor(ms: number): void {
    if (!(ms > 0)) return;
    const now = this.#now();
    const until = now + ms;
    if (until <= this.#pausedUntil) return;
    // Capacity left unused before the pause stays counted; none is during it.
    this.#idleMs += this.#currentIdle(now);
    this.#stats.pausedMs += until - Math.max(now, this.#pausedUntil);
    this.#stats.pauses += 1;
    this.#pausedUntil = until;
    this.#queue.pause();
    clearTimeout(this.#resumeTimer);
    // Kept referenced: tasks waiting in a paused queue hold no timer of their
    // own, so this one is what keeps the process alive until they run.
    this.#resumeTimer = setTimeout(() => {
      this.#resumeTimer = undefined;
      this.#queue.start();
    }, ms);
  }

  /**
   * Milliseconds, summed since the limiter was made, during which a token was
   * free and no task waited for it: capacity that nobody used. Pauses do not
   * count (no token is free during a pause). A crawl that sees this grow
   * knows its requests in flight and waiting cannot keep the bucket full.
   */
  get idleMs(): number {
    return this.#idleMs + this.#currentIdle(this.#now());
  }

  /**
   * About how long a task scheduled now would wait for its token: until the
   * next token is free, plus a slot for each task already waiting (priorities
   * aside). Lets a caller tell the service's latency from the bucket's wait.
   */
  get waitMs(): number {
    const freeAt = Math.max(this.#lastStart + this.spacingMs, this.#pausedUntil);
    return Math.max(0, freeAt - this.#now()) + this.#queue.size * this.spacingMs;
  }

  /** The gap, up to `now`, since the token became free, while nothing waits. */
  #currentIdle(now: number): number {
    if (this.#queue.size > 0) return 0;
    const freeSince = Math.max(this.#lastStart + this.spacingMs, this.#pausedUntil);
    return Math.max(0, now - freeSince);
  }

  get stats(): Readonly<RateLimiterStats> {
    return { ...this.#stats };
  }

  /** Tasks waiting for a token. */
  get pending(): number {
    return this.#queue.size;
  }

  /** Tasks that got a token and have not settled yet. */
  get inFlight(): number {
    return this.#queue.pending;
  }
}
