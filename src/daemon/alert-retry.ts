/** What a failed attempt to deliver an alert met: an HTTP status, or a network error's code. */
export interface AlertAttemptFailure {
  /** 1 after the first attempt. */
  attempt: number;
  status: number | undefined;
  code: string | undefined;
}

/** Statuses a receiver may answer differently later: time-out, too many, and its own faults. */
const RETRIED_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * The wait before the next attempt to deliver an alert, or 0 to give up:
 * retried are network errors (no status) and the statuses above, up to
 * `retries` times, waiting base, 2×base, 4×base ... at most maxMs. Another
 * 4xx (a revoked Slack hook answers 404 or 410) never gets better.
 */
export function alertRetryDelayMs(
  failure: AlertAttemptFailure,
  options: { retries: number; baseMs: number; maxMs: number },
): number {
  if (failure.attempt > options.retries) return 0;
  const retried = failure.status === undefined ? failure.code !== undefined : RETRIED_STATUSES.has(failure.status);
  if (!retried) return 0;
  return Math.min(options.maxMs, options.baseMs * 2 ** Math.min(failure.attempt - 1, 30));
}
