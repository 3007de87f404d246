import type { FaultKind } from './fault-spec.js';
import type { DeliveryStats } from './webhook-deliveries.js';

export interface SimulatorStats {
  /** Requests received (all routes, all outcomes). */
  requests: number;
  /** Clock time (ms) of the first and the last request received: the span a client kept the limit busy. */
  firstRequestAt: number | null;
  lastRequestAt: number | null;
  /** Route (method and templated path) -> status (or `reset`) -> count. */
  byRoute: Record<string, Record<string, number>>;
  /** 429s from the token bucket (spurious 429 faults are counted under faultsInjected). */
  count429: number;
  faultsInjected: Record<FaultKind, number>;
  /** Webhook deliveries: attempts, successes, failures by status. */
  deliveries: DeliveryStats;
  /**
   * The `cursor` of every search that reached its handler, as sent (parsed
   * JSON), in arrival order; the last SEARCH_CURSORS_KEPT of them. Tests read
   * it to see what a resumed crawl sent back.
   */
  searchCursors: unknown[];
}

export const SEARCH_CURSORS_KEPT = 10_000;

/** Records the cursor of a search body, keeping the log bounded for long-running simulators. */
export function recordSearchCursor(stats: SimulatorStats, cursor: unknown): void {
  if (cursor === undefined || cursor === null) return;
  stats.searchCursors.push(cursor);
  if (stats.searchCursors.length > SEARCH_CURSORS_KEPT) stats.searchCursors.splice(0, stats.searchCursors.length - SEARCH_CURSORS_KEPT);
}

export function newStats(deliveries: DeliveryStats): SimulatorStats {
  return { requests: 0, firstRequestAt: null, lastRequestAt: null, byRoute: {}, count429: 0, faultsInjected: { '500': 0, reset: 0, truncate: 0, slow: 0, '429': 0 }, deliveries, searchCursors: [] };
}

export function countResponse(stats: SimulatorStats, route: string, status: string): void {
  const byStatus = (stats.byRoute[route] ??= {});
  byStatus[status] = (byStatus[status] ?? 0) + 1;
}
