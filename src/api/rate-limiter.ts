import { StartSchedule } from './start-schedule.js';

export interface RateLimiterOptions {
  /**
   * Request starts allowed in any rolling second. The service allows "about
   * 10 requests per second" per token and answers 429 beyond that (config `rate`).
   */
  rate: number;
  /**
   * Clock for the schedule and the bookkeeping in `stats`, in epoch milliseconds.
   * @default the epoch time in fractions of a millisecond (`performance`): with
   * whole milliseconds, a start at 0.9 recorded as 0 would let the start one
   * window later go at 1000.0, 999.1 ms after it.
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
  /**
   * Aborting it takes a task that is still waiting out of the queue, unstarted (its token not taken), rejecting with
   * the reason.
   */
  signal?: AbortSignal;
}

const preciseNow = (): number => performance.timeOrigin + performance.now();

/** A task waiting for its token. */
interface Waiting {
  readonly run: () => void;
  readonly priority: number;
  readonly detach: () => void;
}

/**
 * The token bucket of one API token. Every request of every worker that uses
 * the token passes through the same instance, so the budget holds whatever
 * runs at once (design.md, "Rules the whole program keeps").
 *
 * Starts follow `StartSchedule`: evenly spaced on an absolute grid, never
 * more than the rate in any rolling second. Waiting tasks start by priority,
 * then in the order they came. One timer is armed for the next free slot
 * while anything waits. Concurrency is unlimited: what is in flight is bounded
 * by the crawl, the bucket only spaces the starts.
 */
export class RateLimiter {
  readonly #now: () => number;
  readonly #schedule: StartSchedule;
  readonly #stats: RateLimiterStats = { started: 0, pausedMs: 0, pauses: 0 };
  /** Highest priority first; among equals, first come first. */
  readonly #waiting: Waiting[] = [];
  #inFlight = 0;
  #pausedUntil = 0;
  #timer: NodeJS.Timeout | undefined;
  /** Unused capacity up to the last schedule (see `idleMs`). */
  #idleMs = 0;
  /** Since when some task has waited without a break (NaN while none waits): set as the first joins an empty queue. */
  #waitingSince = NaN;

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
    this.#now = options.now ?? preciseNow;
    // Counted from construction: the bucket is full and unused until the first task.
    this.#schedule = new StartSchedule(rate, this.#now());
  }

  /** Runs `fn` once a token is free; the token is taken when `fn` starts. */
  schedule<T>(fn: () => Promise<T>, options: ScheduleOptions = {}): Promise<T> {
    const { signal } = options;
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    const now = this.#now();
    this.#idleMs += this.#currentIdle(now);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        const at = this.#waiting.indexOf(task);
        if (at >= 0) this.#waiting.splice(at, 1);
        if (this.#waiting.length === 0) {
          this.#waitingSince = NaN;
          this.#disarm();
        }
        reject(signal?.reason);
      };
      const task: Waiting = {
        priority: options.priority ?? 0,
        detach: () => signal?.removeEventListener('abort', onAbort),
        run: () => {
          this.#inFlight += 1;
          const settle = () => (this.#inFlight -= 1);
          let result: Promise<T>;
          try {
            result = fn();
          } catch (error) {
            settle();
            reject(error);
            return;
          }
          result.then(
            (value) => (settle(), resolve(value)),
            (error: unknown) => (settle(), reject(error)),
          );
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (this.#waiting.length === 0) this.#waitingSince = now;
      let at = this.#waiting.length;
      while (at > 0 && (this.#waiting[at - 1]?.priority ?? 0) < task.priority) at -= 1;
      this.#waiting.splice(at, 0, task);
      this.#startDue();
    });
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
    this.#arm();
  }

  /** Starts the head task if its token is free, then arms the timer for the next. */
  #startDue(): void {
    const now = this.#now();
    const head = this.#waiting[0];
    if (head !== undefined && now >= this.#freeAt) {
      this.#waiting.shift();
      head.detach();
      this.#stats.started += 1;
      // The slot went unused only if nothing waited for it: the head may be a task of a higher priority that came
      // after it, and others waited all along. Taken as unused, each such start moved the grid by the few
      // milliseconds the task came late: at 1 s latency, with a crawl's streams served by their rests, about 0.2 s
      // over a 40 s backfill.
      const waitedSince = this.#waitingSince;
      if (this.#waiting.length === 0) this.#waitingSince = NaN;
      // Read again at the last moment: a start recorded earlier than it happened would let the next window's start come
      // too soon.
      this.#schedule.take(this.#now(), Math.max(waitedSince, this.#pausedUntil));
      head.run();
    }
    this.#arm();
  }

  /**
   * One timer for the next free slot while anything waits. It stays
   * referenced: waiting tasks hold no timer of their own, so this one is what
   * keeps the process alive until they run.
   */
  #arm(): void {
    this.#disarm();
    if (this.#waiting.length === 0) return;
    const delay = Math.max(0, Math.ceil(this.#freeAt - this.#now()));
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#startDue();
    }, delay);
  }

  #disarm(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  get #freeAt(): number {
    return Math.max(this.#schedule.freeAt, this.#pausedUntil);
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
    return Math.max(0, this.#freeAt - this.#now()) + this.#waiting.length * this.spacingMs;
  }

  /** The gap, up to `now`, since the token became free, while nothing waits. */
  #currentIdle(now: number): number {
    if (this.#waiting.length > 0) return 0;
    return Math.max(0, now - this.#freeAt);
  }

  get stats(): Readonly<RateLimiterStats> {
    return { ...this.#stats };
  }

  /** Tasks waiting for a token. */
  get pending(): number {
    return this.#waiting.length;
  }

  /** Tasks that got a token and have not settled yet. */
  get inFlight(): number {
    return this.#inFlight;
  }
}
