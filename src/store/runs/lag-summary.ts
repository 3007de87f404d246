import type { Resource } from '../../normalize/rows.js';
import type { ChangeLag } from '../sink.js';

/**
 * The nearest-rank p-th percentile (0 < p <= 100) of values sorted
 * ascending: the smallest value at least p% of them do not exceed, so always
 * one that was observed. Null for none.
 */
export function nearestRank(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

/** The observed lag of an account and resource's recent changes, in seconds. */
export interface LagSummary {
  account: string;
  resource: Resource;
  /** Changes summarized (the latest, at most CHANGE_LAGS_KEPT), and when the oldest of them was stored. */
  changes: number;
  since: string;
  p50Seconds: number;
  p95Seconds: number;
  maxSeconds: number;
}

/** One summary per account and resource of `lags`, in the order they first appear. */
export function summarizeLags(lags: readonly ChangeLag[]): LagSummary[] {
  const groups = new Map<string, ChangeLag[]>();
  for (const lag of lags) {
    const key = `${lag.account}\u0000${lag.resource}`;
    const group = groups.get(key) ?? [];
    group.push(lag);
    groups.set(key, group);
  }
  return [...groups.values()].map((group) => {
    const sorted = group.map((l) => l.lagSeconds).sort((a, b) => a - b);
    const since = group.reduce((oldest, l) => (l.storedAt < oldest ? l.storedAt : oldest), group[0]!.storedAt);
    return {
      account: group[0]!.account,
      resource: group[0]!.resource,
      changes: group.length,
      since,
      p50Seconds: nearestRank(sorted, 50)!,
      p95Seconds: nearestRank(sorted, 95)!,
      maxSeconds: sorted[sorted.length - 1]!,
    };
  });
}
