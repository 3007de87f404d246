import type { RefreshCandidate, RefreshTier } from '../../store/sink.js';

/** How the refresh of non-final sessions spends a run's requests. */
export interface RefreshPolicy {
  /** Sessions younger than this (now minus their creation) are hot: checked first, every run. */
  hotSeconds: number;
  /** One run: the first back-off interval, and the interval of a hot session. */
  runSeconds: number;
  /** Longest back-off interval of a session the healthy webhook stream covers. */
  maxIntervalSeconds: number;
  /**
   * Most requests the refresh of one account and resource spends in a run (its share of the account's budget); 0: none.
   */
  maxRequests: number;
  /**
   * The webhook stream is healthy: a session whose latest observation is a
   * delivery newer than its last poll waits for its back-off even while young.
   */
  webhooksHealthy: boolean;
}

/**
 * The tier of a non-final session: young ones are hot, unless the healthy
 * webhook stream covers them (its delivery is what is stored, or was when a
 * check put them on back-off); the rest back off. A quiet stream makes them
 * hot again.
 */
export function tierOf(
  candidate: RefreshCandidate,
  now: number,
  policy: Pick<RefreshPolicy, 'hotSeconds' | 'webhooksHealthy'>,
): RefreshTier {
  const young = candidate.createdEpoch !== null && now - candidate.createdEpoch < policy.hotSeconds;
  if (!young) return 'backoff';
  return policy.webhooksHealthy && (candidate.deliveredSinceCheck || candidate.tier === 'backoff') ? 'backoff' : 'hot';
}

/**
 * The interval after a check: one run while hot or after a change, else the one it was on (see `intervalInEffect`)
 * doubled, up to the longest.
 */
export function nextInterval(
  previous: number | null,
  tier: RefreshTier,
  changed: boolean,
  policy: Pick<RefreshPolicy, 'runSeconds' | 'maxIntervalSeconds'>,
): number {
  const base = Math.min(policy.runSeconds, policy.maxIntervalSeconds);
  if (tier === 'hot' || changed || previous === null || previous <= 0) return base;
  return Math.min(policy.maxIntervalSeconds, Math.max(base, previous * 2));
}

/**
 * The back-off interval a session is on now: none while hot; the one its
 * last check set; for one never polled that is no longer young (a backfill or
 * a late pass stored it), the longest. It paces only the sessions a healthy
 * webhook stream covers (see `coveredByWebhooks`); every other non-final
 * session is checked whenever the budget reaches it.
 */
export function intervalInEffect(
  candidate: RefreshCandidate,
  tier: RefreshTier,
  now: number,
  policy: IntervalPolicy,
): number {
  const base = Math.min(policy.runSeconds, policy.maxIntervalSeconds);
  if (tier === 'hot') return 0;
  if (candidate.intervalSeconds !== null)
    return Math.min(policy.maxIntervalSeconds, Math.max(candidate.intervalSeconds, base));
  return firstSeenOld(candidate, now, policy) ? policy.maxIntervalSeconds : base;
}

/** What the back-off of a session depends on. */
type IntervalPolicy = Pick<RefreshPolicy, 'runSeconds' | 'maxIntervalSeconds' | 'hotSeconds'>;

/** Never polled, and past the hot tier's age: stored by a backfill or a late pass, not seen young. */
function firstSeenOld(candidate: RefreshCandidate, now: number, policy: IntervalPolicy): boolean {
  return (
    candidate.checkedAt === null && candidate.createdEpoch !== null && now - candidate.createdEpoch >= policy.hotSeconds
  );
}

/**
 * The healthy webhook stream stands in for polling: the session's stored
 * content came from a delivery no poll has contradicted, or a delivery put it
 * on back-off while young. The service sends a delivery when such a session
 * changes, so it is polled only on its back-off (`intervalInEffect`), as a
 * safety net for a delivery lost on the way. A quiet stream covers nothing.
 */
export function coveredByWebhooks(
  candidate: RefreshCandidate,
  tier: RefreshTier,
  policy: Pick<RefreshPolicy, 'webhooksHealthy'>,
): boolean {
  return (
    policy.webhooksHealthy && tier === 'backoff' && (candidate.deliveredSinceCheck || candidate.tier === 'backoff')
  );
}

/**
 * Seconds since a session was last observed (its last poll, else the pass or delivery that stored it); Infinity: never.
 */
export function staleness(candidate: RefreshCandidate, now: number): number {
  const seen = candidate.checkedAt ?? candidate.seenAt;
  return seen === null ? Infinity : Math.max(0, now - seen);
}

/**
 * Whether a session is due for a check this run, and how stale it is. Every
 * non-final session is due: the budget, not a back-off, decides how many a
 * run checks, so that whenever checking them all fits, every run does (right
 * after a backfill too), and otherwise the stalest are checked first. Only
 * a session the healthy webhook stream covers waits for its back-off, counted
 * from its last poll or, never polled, from when it was stored; runs do not
 * start exactly one interval apart, so half a run early counts as due.
 * Returns null when not due.
 */
export function dueStaleness(
  candidate: RefreshCandidate,
  tier: RefreshTier,
  now: number,
  policy: IntervalPolicy & Pick<RefreshPolicy, 'webhooksHealthy'>,
): number | null {
  const stale = staleness(candidate, now);
  if (!coveredByWebhooks(candidate, tier, policy) || stale === Infinity) return stale;
  return stale + policy.runSeconds / 2 >= intervalInEffect(candidate, tier, now, policy) ? stale : null;
}
