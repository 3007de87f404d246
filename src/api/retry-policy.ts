export interface RetryPolicyOptions {
  /** Retries after the first attempt; attempt `limit + 1` is the last one. */
  limit: number;
  /** Ceiling of the first backoff; it doubles with every attempt. */
  baseMs: number;
  /** Largest backoff ceiling. A `Retry-After` from the service is obeyed even when longer. */
  maxMs: number;
}

/** What went wrong with one attempt, as far as the retry decision cares. */
export type FailureKind =
  /** The service answered with a non-2xx status. */
  | { kind: 'status'; status: number }
  /** No answer: the connection was refused, reset or hung up. */
  | { kind: 'network'; code: string }
  /** No answer within the time-out. */
  | { kind: 'timeout' }
  /** A 2xx whose body is not valid JSON (for example cut off mid-way). */
  | { kind: 'invalid-body' }
  /** Anything else (a bug, an invalid URL, a hook that threw): never retried. */
  | { kind: 'other'; code: string };

export type RetryableInput = FailureKind & {
  /**
   * Whether sending the request twice is harmless. Searches and reads are;
   * creating a webhook or a login voucher is not, so those are only retried
   * when the service certainly did not act on them.
   * @default true
   */
  idempotent?: boolean;
};

export type RetryDecision = { retry: true; delayMs: number } | { retry: false };

/** Connection failures where the request may or may not have reached the service. */
const TRANSIENT_NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
]);

/**
 * Whether this kind of failure is worth another attempt at all (ignoring the
 * attempt count). 429 and 5xx are passing states of the service; 503 is even
 * documented as "clients retry" for the supported catalog. 400, 401, 403, 404,
 * 409 and every other 4xx say the request itself is wrong.
 */
export function isRetryable(input: RetryableInput): boolean {
  const idempotent = input.idempotent ?? true;
  switch (input.kind) {
    case 'status':
      if (input.status === 429 || input.status === 503) return true;
      return idempotent && input.status >= 500 && input.status <= 599;
    case 'network':
      // A refused connection never reached the service, so even a create is safe to resend.
      if (input.code === 'ECONNREFUSED') return true;
      return idempotent && TRANSIENT_NETWORK_CODES.has(input.code);
    case 'timeout':
    case 'invalid-body':
      return idempotent;
    case 'other':
      return false;
  }
}

/**
 * Whether to try again after attempt number `attempt` (1 for the first
 * request) failed, and how long to wait. Pure: the caller supplies the
 * randomness.
 *
 * Backoff is capped exponential with full jitter: a uniform delay between 0
 * and `min(maxMs, baseMs * 2^(attempt-1))`, so that many workers that failed
 * together do not come back together. A 429 with `Retry-After` waits exactly
 * that long: the service said when the budget returns, and the whole bucket
 * is paused for it anyway.
 */
export function retryDecision(
  attempt: number,
  error: RetryableInput,
  retryAfterMs: number | undefined,
  options: RetryPolicyOptions,
  random: () => number,
): RetryDecision {
  if (attempt > options.limit || !isRetryable(error)) return { retry: false };
  if (error.kind === 'status' && error.status === 429 && retryAfterMs !== undefined && retryAfterMs > 0) {
    return { retry: true, delayMs: Math.ceil(retryAfterMs) };
  }
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** (attempt - 1));
  // At least 1 ms: the transport reads a wait of 0 as "do not retry".
  return { retry: true, delayMs: Math.max(1, Math.floor(random() * ceiling)) };
}
