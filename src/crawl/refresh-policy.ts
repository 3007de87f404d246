import { PAGE_SIZE } from '../config/constants.js';
import type { RefreshCandidate, RefreshTier, WindowState } from '../store/sink.js';
import type { PassTask } from './planner.js';

/** How the refresh of non-final sessions spends a run's requests. */
export interface RefreshPolicy {
  /** Sessions younger than this (now minus their creation) are re-checked on every run. */
  hotSeconds: number;
  /** One run: the first back-off interval of an older session, and the interval of a hot one. */
  runSeconds: number;
  /** Longest back-off interval. */
  maxIntervalSeconds: number;
  /** Most requests the refresh of one account and resource spends in a run (its share of the account's budget). */
  maxRequests: number;
  /**
   * The webhook stream is healthy: a session whose latest observation is a
   * delivery newer than its last poll waits for its back-off even while young.
   */
  webhooksHealthy: boolean;
}

export interface RefreshPlan {
  /** Windows to page again in full: cheaper than one GET per due session in them. */
  repage: PassTask[];
  /** Sessions to GET one by one. */
  get: string[];
  /** Every session the plan observes (the GETs and the non-final sessions of repaged windows), with its tier. */
  checked: Map<string, RefreshTier>;
  /** Requests the plan costs, and what GETting every due session would have cost. */
  cost: number;
  naiveCost: number;
  /** Sessions due now, and those of them left for a later run by the budget. */
  due: number;
  deferred: number;
}

/**
 * The tier of a non-final session: young ones are hot, unless the healthy
 * webhook stream covers them (its delivery is what is stored, or was when a
 * check put them on back-off); the rest back off. A quiet stream makes them
 * hot again.
 */
export function tierOf(candidate: RefreshCandidate, now: number, policy: Pick<RefreshPolicy, 'hotSeconds' | 'webhooksHealthy'>): RefreshTier {
  const young = candidate.createdEpoch !== null && now - candidate.createdEpoch < policy.hotSeconds;
  if (!young) return 'backoff';
  return policy.webhooksHealthy && (candidate.deliveredSinceCheck || candidate.tier === 'backoff') ? 'backoff' : 'hot';
}

/** The interval after a check: one run while hot or after a change, else doubled up to the longest. */
export function nextInterval(previous: number | null, tier: RefreshTier, changed: boolean, policy: Pick<RefreshPolicy, 'runSeconds' | 'maxIntervalSeconds'>): number {
  const base = Math.min(policy.runSeconds, policy.maxIntervalSeconds);
  if (tier === 'hot' || changed || previous === null) return base;
  return Math.min(policy.maxIntervalSeconds, Math.max(base, previous * 2));
}

/**
 * How late a session's check is, in seconds (0 and up: due; Infinity: never
 * seen), or null when it is not due. The back-off counts from its last poll
 * (the time of the run that made it), or for a session never polled from
 * when it was last observed (the pass that stored it). Runs do not start
 * exactly one interval apart, so a check half a run early counts as due:
 * otherwise a session on a one-run interval would skip every other run.
 */
export function overdueSeconds(candidate: RefreshCandidate, tier: RefreshTier, now: number, policy: Pick<RefreshPolicy, 'runSeconds' | 'maxIntervalSeconds'>): number | null {
  const seen = candidate.checkedAt ?? candidate.seenAt;
  if (seen === null) return Infinity;
  const interval = tier === 'hot' ? 0 : Math.min(policy.maxIntervalSeconds, Math.max(candidate.intervalSeconds ?? 0, Math.min(policy.runSeconds, policy.maxIntervalSeconds)));
  const late = now - seen - interval;
  return late + policy.runSeconds / 2 >= 0 ? Math.max(0, late) : null;
}

/** The window holding an epoch, by binary search over windows sorted by start. */
function windowOf(sorted: readonly WindowState[], epoch: number): WindowState | undefined {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const w = sorted[mid]!;
    if (epoch < w.windowStart) hi = mid - 1;
    else if (epoch >= w.windowEnd) lo = mid + 1;
    else return w;
  }
  return undefined;
}

interface Due {
  candidate: RefreshCandidate;
  tier: RefreshTier;
  overdue: number;
  window: WindowState | undefined;
}

/** Most overdue first; among equals (never seen, hot of one run) the youngest. */
function byUrgency(a: Due, b: Due): number {
  if (a.overdue !== b.overdue) return a.overdue === Infinity ? -1 : b.overdue === Infinity ? 1 : b.overdue - a.overdue;
  return (b.candidate.createdEpoch ?? -Infinity) - (a.candidate.createdEpoch ?? -Infinity) || (a.candidate.serviceId < b.candidate.serviceId ? -1 : 1);
}

/**
 * The refresh of one run: the non-final sessions that are due (hot ones every
 * run, the others when their back-off ran out), the most overdue first, until
 * `maxRequests` are spent. Per window it takes the cheaper way, counting
 * requests: GET each due session (1 a request), or page the window again (25
 * sessions a request, its item count from the last pass) once that costs no
 * more than the GETs. Sessions inside `alreadyPassed` were just seen by this run.
 */
export function planRefresh(
  candidates: readonly RefreshCandidate[],
  windows: readonly WindowState[],
  alreadyPassed: ReadonlyArray<readonly [number, number]>,
  now: number,
  policy: RefreshPolicy,
): RefreshPlan {
  const sorted = [...windows].sort((a, b) => a.windowStart - b.windowStart);
  const passed = (epoch: number) => alreadyPassed.some(([a, b]) => epoch >= a && epoch < b);
  const inWindow = new Map<WindowState, Array<{ serviceId: string; tier: RefreshTier }>>();
  const due: Due[] = [];
  for (const candidate of candidates) {
    const epoch = candidate.createdEpoch;
    if (epoch !== null && passed(epoch)) continue;
    const window = epoch === null ? undefined : windowOf(sorted, epoch);
    const tier = tierOf(candidate, now, policy);
    if (window) {
      let list = inWindow.get(window);
      if (!list) inWindow.set(window, (list = []));
      list.push({ serviceId: candidate.serviceId, tier });
    }
    const overdue = overdueSeconds(candidate, tier, now, policy);
    if (overdue !== null) due.push({ candidate, tier, overdue, window });
  }
  due.sort(byUrgency);

  const gets = new Map<WindowState | undefined, Due[]>();
  const repaged = new Set<WindowState>();
  let cost = 0;
  for (const d of due) {
    const w = d.window;
    if (w && repaged.has(w)) continue;
    const ids = gets.get(w) ?? [];
    const pageCost = w ? Math.max(1, Math.ceil(w.items / PAGE_SIZE)) : Infinity;
    // Paging the window again replaces its GETs once they would cost more than its pages.
    const repage = ids.length + 1 > pageCost;
    const extra = repage ? pageCost - ids.length : 1;
    if (cost + extra > policy.maxRequests) continue;
    cost += extra;
    if (repage) {
      repaged.add(w!);
      gets.delete(w);
    } else {
      ids.push(d);
      gets.set(w, ids);
    }
  }

  const checked = new Map<string, RefreshTier>();
  const get: string[] = [];
  for (const list of gets.values()) {
    for (const d of list) {
      get.push(d.candidate.serviceId);
      checked.set(d.candidate.serviceId, d.tier);
    }
  }
  const repage: PassTask[] = [];
  for (const w of repaged) {
    repage.push({ window: w, passFrom: w.windowStart, passTo: Math.min(w.windowEnd, Math.ceil(now)), resume: false });
    for (const s of inWindow.get(w) ?? []) checked.set(s.serviceId, s.tier);
  }
  const deferred = due.filter((d) => !checked.has(d.candidate.serviceId)).length;
  return { repage, get, checked, cost, naiveCost: due.length, due: due.length, deferred };
}
