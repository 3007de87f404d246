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
   * Every search that reached its handler, in arrival order, with its range
   * and cursor as sent (parsed JSON; null when absent); the last
   * SEARCHES_KEPT of them. Tests read it to see what a resumed crawl sent back.
   */
  searches: SearchLogEntry[];
  /** Per token owner: requests its bucket let through, and the clock times (ms) of its first and last. */
  byOwner: Record<string, OwnerRequests>;
}

export interface OwnerRequests {
  requests: number;
  firstAt: number;
  lastAt: number;
}

export interface SearchLogEntry {
  /** Method and templated path. */
  route: string;
  range: unknown;
  cursor: unknown;
}

export const SEARCHES_KEPT = 10_000;

/** Records a search body, keeping the log bounded for long-running simulators. */
export function recordSearch(stats: SimulatorStats, route: string, body: unknown): void {
  const { range, cursor } =
    typeof body === 'object' && body !== null ? (body as { range?: unknown; cursor?: unknown }) : {};
  stats.searches.push({ route, range: range ?? null, cursor: cursor ?? null });
  if (stats.searches.length > SEARCHES_KEPT) stats.searches.splice(0, stats.searches.length - SEARCHES_KEPT);
}

export function newStats(deliveries: DeliveryStats): SimulatorStats {
  return {
    requests: 0,
    firstRequestAt: null,
    lastRequestAt: null,
    byRoute: {},
    count429: 0,
    faultsInjected: { '500': 0, reset: 0, truncate: 0, slow: 0, '429': 0 },
    deliveries,
    searches: [],
    byOwner: {},
  };
}

/** Counts a request of `owner` that its bucket let through: how much of its own limit each account kept busy. */
export function countOwnerRequest(stats: SimulatorStats, owner: string, at: number): void {
  const seen = stats.byOwner[owner];
  if (seen === undefined) stats.byOwner[owner] = { requests: 1, firstAt: at, lastAt: at };
  else {
    seen.requests += 1;
    seen.lastAt = at;
  }
}

export function countResponse(stats: SimulatorStats, route: string, status: string): void {
  const byStatus = (stats.byRoute[route] ??= {});
  byStatus[status] = (byStatus[status] ?? 0) + 1;
}
