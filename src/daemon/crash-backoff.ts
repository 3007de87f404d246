export interface CrashBackoffOptions {
  /** Failed ticks in a row before the daemon starts backing off. @default 3 */
  threshold?: number;
  /** Wait after the threshold is reached; doubled for every further failure. @default 60000 */
  baseMs?: number;
  /** Longest wait. @default 1800000 (30 minutes) */
  maxMs?: number;
}

/**
 * How long the daemon waits before its next attempt after `failuresInARow`
 * failed ticks: 0 below the threshold, then base, 2×base, 4×base ... capped.
 * A crash loop (a revoked token, a full disk) then costs a few requests an
 * hour instead of one burst per tick, and the wait says why in the log.
 */
export function crashBackoffMs(failuresInARow: number, options: CrashBackoffOptions = {}): number {
  const threshold = options.threshold ?? 3;
  const base = options.baseMs ?? 60_000;
  const max = options.maxMs ?? 1_800_000;
  if (failuresInARow < threshold) return 0;
  const doublings = Math.min(failuresInARow - threshold, 30);
  return Math.min(max, base * 2 ** doublings);
}

/**
 * The pause before the background backfill's resume after `failures`
 * stopped attempts in a row: the schedule's gap (at least a second), doubled
 * per further failure, at most ten minutes (or the gap, if longer).
 */
export function backfillResumeMs(failures: number, gapMs: number): number {
  const base = Math.max(1_000, gapMs);
  return crashBackoffMs(failures, { threshold: 1, baseMs: base, maxMs: Math.max(base, 600_000) });
}
