/**
 * The service's rate limit for one token: `burst` requests at once, refilled
 * at `rate` per second. The clock is injected so tests can hold time still.
 */
export class TokenBucket {
  readonly #rate: number;
  readonly #burst: number;
  readonly #clock: () => number;
  #tokens: number;
  #lastMs: number;

  constructor(rate: number, burst: number, clock: () => number) {
    this.#rate = rate;
    this.#burst = burst;
    this.#clock = clock;
    this.#tokens = burst;
    this.#lastMs = clock();
  }

  /** Takes one token; false means the request is over the limit. */
  take(): boolean {
    const now = this.#clock();
    if (now > this.#lastMs) {
      this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#lastMs) / 1000) * this.#rate);
      this.#lastMs = now;
    }
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
