import type { RequestTally } from './service-client.js';

/**
 * Counting an attempt in a tally: it adds to the tally and to every tally
 * it is a part of (`within`), so a part's count and the whole's stay one
 * figure sent twice, never two guesses.
 */

/** One attempt sent (it took a token). */
export function countAttempt(tally: RequestTally | undefined): void {
  for (let t = tally; t !== undefined; t = t.within) t.requests += 1;
}

/** One failed attempt: whether it met a 429, and what the retry after it waits (0: none). */
export function countFailure(tally: RequestTally | undefined, throttled: boolean, waitMs: number): void {
  for (let t = tally; t !== undefined; t = t.within) {
    if (throttled) t.throttled = (t.throttled ?? 0) + 1;
    t.retryWaitMs = (t.retryWaitMs ?? 0) + waitMs;
  }
}
