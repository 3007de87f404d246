import { CONNECTION_LOST, StoreError } from './store-error.js';

/**
 * Driver codes of a target that fails for a moment and then works again:
 * - PostgreSQL shutting down or starting (57P01 admin shutdown, 57P02 crash
 *   shutdown, 57P03 cannot connect now), a connection lost (class 08);
 * - a serialization failure or a deadlock (40001, 40P01): the transaction
 *   lost a race and succeeds when run again;
 * - the server not listening or the connection dropped (Node's codes).
 */
const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  '57P01',
  '57P02',
  '57P03',
  '40001',
  '40P01',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
]);

/**
 * Whether `error` is a passing fault of the target: the same transaction,
 * run again whole a little later, may well commit. Refused rows, a full
 * disk, a wrong statement and ivsync's own errors are not. A refused
 * connection counts only when `refused` says so: when a command opens its
 * target, it more likely means a wrong address than a restart.
 */
export function isTransientFault(
  error: unknown,
  options: { refused: boolean } = { refused: true },
): error is StoreError {
  if (!(error instanceof StoreError) || error.failure !== 'target') return false;
  if (error.driverCode === 'ECONNREFUSED') return options.refused;
  if (error.driverCode !== null) return TRANSIENT_CODES.has(error.driverCode);
  return CONNECTION_LOST.test(error.detail);
}

/** First pause after a transient fault; doubled per attempt up to RETRY_MAX_PAUSE_MS. */
export const RETRY_FIRST_PAUSE_MS = 250;
export const RETRY_MAX_PAUSE_MS = 5_000;

/**
 * The pause before attempt `attempt + 1` (the first retry is attempt 1) of
 * a transaction that met a transient fault, `elapsedMs` after its first
 * attempt began; null once the budget is spent. The last pause is cut to end
 * with the budget, so a database back within the budget is always met.
 */
export function transientRetryPauseMs(attempt: number, elapsedMs: number, budgetMs: number): number | null {
  const left = budgetMs - elapsedMs;
  if (left <= 0) return null;
  const pause = Math.min(RETRY_MAX_PAUSE_MS, RETRY_FIRST_PAUSE_MS * 2 ** Math.min(attempt - 1, 20));
  return Math.min(pause, left);
}
