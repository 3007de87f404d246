import type { RefreshCandidate, RefreshTier, WindowState } from '../../store/sink.js';
import type { PassTask } from '../engine/planner.js';
import { knownPartPages, pagesInPart, partPages, partRange } from './repage-range.js';

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

export interface RefreshPlan {
  /** Parts of windows to page again, cheaper than one GET per due session in them, each with its pages. */
  repage: Array<PassTask & { pages: number }>;
  /** Sessions to GET one by one. */
  get: string[];
  /**
   * Every session the plan observes (the GETs and the non-final sessions of repaged windows), with its tier and the
   * back-off interval it is on.
   */
  checked: Map<string, { tier: RefreshTier; interval: number }>;
  /** Hot sessions inside `alreadyPassed`: the run's pass observed them, which counts as their check. */
  seenByPass: string[];
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
  interval: number;
  /** Seconds since its last observation (Infinity: never observed). */
  stale: number;
  window: WindowState | undefined;
}

/**
 * Hot sessions first (young ones change most; every run re-checks them, and a
 * tight budget must keep that), then the stalest; among equals (checked by
 * the same run, stored by the same pass) the youngest, so that a window's
 * sessions come together and its part is paged once.
 */
function byUrgency(a: Due, b: Due): number {
  if (a.tier !== b.tier) return a.tier === 'hot' ? -1 : 1;
  if (a.stale !== b.stale) return a.stale === Infinity ? -1 : b.stale === Infinity ? 1 : b.stale - a.stale;
  return (
    (b.candidate.createdEpoch ?? -Infinity) - (a.candidate.createdEpoch ?? -Infinity) ||
    (a.candidate.serviceId < b.candidate.serviceId ? -1 : 1)
  );
}

/**
 * The refresh of one run: every non-final session is due (but those the
 * healthy webhook stream covers, on their back-off), hot ones first, then the
 * stalest, until `maxRequests` are spent. Per window it takes the cheaper
 * way, counting requests: GET each due session (1 a request), or page again
 * the part of the window from its first due session to its last (25 sessions
 * a request, sized from the window's last pass; see repage-range.ts) once
 * that costs no more than the GETs. So when checking them all costs no more
 * than the budget, the plan checks them all; otherwise a session that does
 * not fit is passed over for the next that does, and the budget is spent
 * whole. Sessions inside `alreadyPassed` were just seen by this run.
 *
 * Candidates are added one at a time (`add`), so a caller can read them in
 * chunks: what the planner keeps of a session that is not due is its id, its
 * place and its back-off, in case a repaged part covers it.
 */
export class RefreshPlanner {
  readonly #now: number;
  readonly #policy: RefreshPolicy;
  readonly #alreadyPassed: ReadonlyArray<readonly [number, number]>;
  readonly #sorted: WindowState[];
  readonly #inWindow = new Map<
    WindowState,
    Array<{ serviceId: string; epoch: number; tier: RefreshTier; interval: number }>
  >();
  readonly #due: Due[] = [];
  readonly #seenByPass: string[] = [];
  /** Created times of the stored sessions of windows read with `know`: their parts' pages are counted, not guessed. */
  readonly #known = new Map<WindowState, Float64Array>();

  constructor(
    windows: readonly WindowState[],
    alreadyPassed: ReadonlyArray<readonly [number, number]>,
    now: number,
    policy: RefreshPolicy,
  ) {
    this.#sorted = [...windows].sort((a, b) => a.windowStart - b.windowStart);
    this.#alreadyPassed = alreadyPassed;
    this.#now = now;
    this.#policy = policy;
  }

  add(candidate: RefreshCandidate): void {
    const now = this.#now;
    const policy = this.#policy;
    const epoch = candidate.createdEpoch;
    const tier = tierOf(candidate, now, policy);
    if (epoch !== null && this.#alreadyPassed.some(([a, b]) => epoch >= a && epoch < b)) {
      // Paged by this run's pass: a hot session is checked by that as by a refresh.
      if (tier === 'hot') this.#seenByPass.push(candidate.serviceId);
      return;
    }
    const window = epoch === null ? undefined : windowOf(this.#sorted, epoch);
    const interval = intervalInEffect(candidate, tier, now, policy);
    const stale = dueStaleness(candidate, tier, now, policy);
    if (stale !== null) this.#due.push({ candidate, tier, interval, stale, window });
    if (window) {
      let list = this.#inWindow.get(window);
      if (!list) this.#inWindow.set(window, (list = []));
      list.push({ serviceId: candidate.serviceId, epoch: epoch!, tier, interval });
    }
  }

  /** The created times (ascending) of a window's stored sessions, from which its parts' pages are counted. */
  know(window: WindowState, epochs: Float64Array): void {
    this.#known.set(window, epochs);
  }

  knows(window: WindowState): boolean {
    return this.#known.has(window);
  }

  /** What paging [lo, hi] of a window costs: counted when known; else estimated, or (`knownOnly`) not to be paged. */
  #pages(window: WindowState, lo: number, hi: number, knownOnly: boolean): number {
    const epochs = this.#known.get(window);
    if (epochs) return knownPartPages(window, epochs, lo, hi, this.#now);
    return knownOnly ? Infinity : partPages(window, lo, hi, this.#now);
  }

  /**
   * The plan on what is known now. With `knownOnly`, only windows read with
   * `know` are paged (the rest are GETs), so the plan's cost is what it sends
   * as far as the target holds what the service does.
   */
  plan(options: { knownOnly?: boolean } = {}): RefreshPlan {
    const knownOnly = options.knownOnly ?? false;
    const { maxRequests } = this.#policy;
    const now = this.#now;
    const due = this.#due.sort(byUrgency);
    // Per window: the due sessions to GET, or (`pages` set) the part of it to page again once that costs no more.
    const gets = new Map<WindowState | undefined, Due[]>();
    const chosen = new Map<WindowState, { lo: number; hi: number; pages: number | null }>();
    let cost = 0;
    for (const d of due) {
      const w = d.window;
      const ids = gets.get(w) ?? [];
      let next: { lo: number; hi: number; pages: number | null } | undefined;
      let extra = 1;
      if (w) {
        const epoch = d.candidate.createdEpoch!;
        const before = chosen.get(w) ?? { lo: epoch, hi: epoch, pages: null };
        const lo = Math.min(before.lo, epoch);
        const hi = Math.max(before.hi, epoch);
        const pages = this.#pages(w, lo, hi, knownOnly);
        // Paging the part again replaces its GETs once they would cost more than its pages.
        const paged = before.pages !== null || ids.length + 1 > pages;
        if (paged) extra = pages - (before.pages ?? ids.length);
        next = { lo, hi, pages: paged ? pages : null };
      }
      if (cost + extra > maxRequests) continue;
      cost += extra;
      if (w && next) chosen.set(w, next);
      if (next !== undefined && next.pages !== null) {
        gets.delete(w);
      } else {
        ids.push(d);
        gets.set(w, ids);
      }
    }

    const checked = new Map<string, { tier: RefreshTier; interval: number }>();
    const get: string[] = [];
    for (const list of gets.values()) {
      for (const d of list) {
        get.push(d.candidate.serviceId);
        checked.set(d.candidate.serviceId, { tier: d.tier, interval: d.interval });
      }
    }
    const repage: Array<PassTask & { pages: number }> = [];
    for (const [w, part] of chosen) {
      if (part.pages === null) continue;
      const [passFrom, passTo] = pagesInPart(w)
        ? partRange(w, part.lo, part.hi, now)
        : [w.windowStart, Math.min(w.windowEnd, Math.ceil(now))];
      repage.push({ window: w, passFrom, passTo, resume: false, pages: part.pages });
      for (const s of this.#inWindow.get(w) ?? [])
        if (s.epoch >= passFrom && s.epoch < passTo) checked.set(s.serviceId, { tier: s.tier, interval: s.interval });
    }
    const deferred = due.filter((d) => !checked.has(d.candidate.serviceId)).length;
    return {
      repage,
      get,
      checked,
      seenByPass: this.#seenByPass,
      cost,
      naiveCost: due.length,
      due: due.length,
      deferred,
    };
  }
}

/** `RefreshPlanner` over a list of candidates. */
export function planRefresh(
  candidates: Iterable<RefreshCandidate>,
  windows: readonly WindowState[],
  alreadyPassed: ReadonlyArray<readonly [number, number]>,
  now: number,
  policy: RefreshPolicy,
): RefreshPlan {
  const planner = new RefreshPlanner(windows, alreadyPassed, now, policy);
  for (const candidate of candidates) planner.add(candidate);
  return planner.plan();
}

/** Rounds of reading windows before a plan pages only those it has read. */
const KNOWN_ROUNDS = 3;

/**
 * The plan whose repaged parts are counted from the sessions the target
 * stores in their windows (`read`), not estimated: so a run sends at most
 * its budget. Each round reads the windows the last plan repages without
 * knowing them and plans again (a part counted dearer than its estimate
 * leaves room for fewer; one counted cheaper, for more); a window is read
 * once. After a few rounds, only windows already read are paged.
 */
export async function planCounted(
  planner: RefreshPlanner,
  read: (window: WindowState) => Promise<Float64Array>,
): Promise<RefreshPlan> {
  for (let round = 0; ; round++) {
    const plan = planner.plan({ knownOnly: round === KNOWN_ROUNDS });
    const unknown = plan.repage.filter((t) => !planner.knows(t.window));
    if (unknown.length === 0) return plan;
    for (const t of unknown) planner.know(t.window, await read(t.window));
  }
}
