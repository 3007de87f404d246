import type { RefreshTierState } from '../store/sink.js';

/** How many schedule gaps a check may be late before it counts as deferred: two runs in a row passed it over. */
const GAPS_OF_GRACE = 3;

/**
 * The staleness bound of an account's non-final sessions, in seconds: what
 * the refresh promises. Every run checks every due session when the budget
 * holds them, so none should be older than a few schedule gaps; a session a
 * healthy webhook stream covers waits for its back-off, up to
 * `maxIntervalSeconds`, on top. `alerts.staleCheckSeconds` replaces it.
 */
export function staleCheckBound(o: {
  configured: number | undefined;
  runSeconds: number;
  maxIntervalSeconds: number;
  webhooksHealthy: boolean;
}): number {
  if (o.configured !== undefined) return o.configured;
  return Math.ceil(GAPS_OF_GRACE * o.runSeconds + (o.webhooksHealthy ? o.maxIntervalSeconds : 0));
}

export interface OldestCheck {
  /** Now minus the oldest check of the account's non-final sessions, any tier; null: it has none. */
  ageSeconds: number | null;
  /** The resource that session belongs to. */
  resource: string | undefined;
}

/** The oldest check of one account's non-final sessions, from the status report's refresh rows. */
export function oldestCheck(rows: readonly RefreshTierState[], account: string, now: number): OldestCheck {
  let oldest: OldestCheck = { ageSeconds: null, resource: undefined };
  for (const row of rows) {
    if (row.account !== account || row.oldestCheckAt === null || row.sessions === 0) continue;
    const age = Math.max(0, Math.round(now - Date.parse(row.oldestCheckAt) / 1000));
    if (oldest.ageSeconds === null || age > oldest.ageSeconds) oldest = { ageSeconds: age, resource: row.resource };
  }
  return oldest;
}
