export interface FailFastLatchOptions {
  /**
   * How long a tripped latch fails every request before it lets requests
   * through again, as unproven as at the start. Within one command the run
   * is over long before; a daemon, whose clients live across runs, tries
   * again on a later run (the service may be back, the token restored).
   * @default 60_000
   */
  holdMs?: number;
  /** Monotonic milliseconds. */
  now: () => number;
}

/** What one request holds while it is waiting or in flight. */
export interface LatchGuard {
  /** Aborted, with the latch's error as reason, when the latch trips. */
  readonly signal: AbortSignal;
  /** Rejects with the latch's error when it trips; never resolves. */
  readonly tripped: Promise<never>;
  /** The request is over: a later trip leaves it alone. */
  release(): void;
}

/**
 * The fail-fast latch of one client (one token, one bucket). Once tripped,
 * by a rejected token or by a service that cannot be reached (see
 * fail-fast-rule.ts), it aborts every request of the client that is waiting
 * for a token or in flight, and fails every later one at once with the same
 * error, without taking a token or sending anything.
 */
export class FailFastLatch {
  readonly #holdMs: number;
  readonly #now: () => number;
  readonly #guards = new Set<AbortController>();
  #proven = false;
  #strikes = 0;
  #error: Error | undefined;
  #trippedAt = 0;

  constructor(options: FailFastLatchOptions) {
    this.#holdMs = options.holdMs ?? 60_000;
    this.#now = options.now;
  }

  /** The error every request fails with while the latch is tripped; undefined when it is not. */
  get error(): Error | undefined {
    if (this.#error !== undefined && this.#now() - this.#trippedAt >= this.#holdMs) {
      this.#error = undefined;
      this.#proven = false;
      this.#strikes = 0;
    }
    return this.#error;
  }

  /** Whether a request has had an answer (any status) since the latch was armed. */
  get proven(): boolean {
    return this.#proven;
  }

  /** An answer came: the service is there. */
  prove(): void {
    this.#proven = true;
  }

  /** Failures to reach the service counted by `strike` since the latch was armed. */
  get strikes(): number {
    return this.#strikes;
  }

  /** Counts a failure to reach the service that did not trip the latch (fail-fast-rule.ts). */
  strike(): void {
    this.#strikes += 1;
  }

  /** Trips the latch with `error`, unless it is tripped already; returns the error requests now fail with. */
  trip(error: Error): Error {
    const current = this.error;
    if (current !== undefined) return current;
    this.#error = error;
    this.#trippedAt = this.#now();
    const guards = [...this.#guards];
    this.#guards.clear();
    for (const controller of guards) controller.abort(error);
    return error;
  }

  /** Registers one request until `release`; a trip in the meantime aborts it. */
  guard(): LatchGuard {
    const controller = new AbortController();
    this.#guards.add(controller);
    const { signal } = controller;
    const tripped = new Promise<never>((_resolve, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
    });
    // Raced by the request; this keeps a trip after the race settled from counting as unhandled.
    tripped.catch(() => undefined);
    return { signal, tripped, release: () => this.#guards.delete(controller) };
  }
}
