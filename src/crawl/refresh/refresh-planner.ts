import { PAGE_SIZE } from '../../config/constants.js';
import type { RefreshCandidate, RefreshTier, WindowState } from '../../store/sink.js';
import type { PassTask } from '../engine/planner.js';
import { knownPartPages, pagesInPart, partPages, partRange } from './repage-range.js';
import { dueStaleness, intervalInEffect, tierOf, type RefreshPolicy } from './refresh-policy.js';

export interface RefreshPlan {
  /** Parts of windows to page again, cheaper than one GET per due session in them, each with its pages. */
  repage: Array<PassTask & { pages: number }>;
  /** Sessions to GET one by one. */
  get: string[];
  /**
   * Every session the plan observes (the GETs and the non-final sessions of repaged windows), with its tier and the
   * back-off interval it is on: the due ones the planner held, and those `RefreshPlanner.cover` adds.
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

/** A due session, as much of it as the plan needs. */
interface Due {
  serviceId: string;
  /** Its created time; null: unknown. */
  epoch: number | null;
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
  return (b.epoch ?? -Infinity) - (a.epoch ?? -Infinity) || (a.serviceId < b.serviceId ? -1 : 1);
}

/**
 * How many of the most urgent due sessions a planner holds. A budget of
 * `maxRequests` checks at most PAGE_SIZE sessions a request (a repaged page
 * holds 25; a GET checks one), so the plan takes its sessions from the first
 * 25 × `maxRequests` by urgency; the rest of the pool is room for those it
 * passes over. The non-final sessions of a long history (a million at ten
 * million sessions) are read, counted and let go: memory follows the budget.
 */
export function poolSize(maxRequests: number): number {
  return Number.isFinite(maxRequests) ? Math.max(1024, (PAGE_SIZE + 7) * Math.ceil(maxRequests)) : Infinity;
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
 * chunks, and the planner holds only the most urgent of those due
 * (`poolSize`): the others are counted. A repaged part also checks sessions
 * it did not hold (not due, or beyond the pool): the caller reads each part's
 * candidates again and hands them to `cover`.
 */
export class RefreshPlanner {
  readonly #now: number;
  readonly #policy: RefreshPolicy;
  readonly #alreadyPassed: ReadonlyArray<readonly [number, number]>;
  readonly #sorted: WindowState[];
  /** The most urgent due sessions, sorted and cut to `#keep` whenever twice that many are held. */
  readonly #due: Due[] = [];
  readonly #keep: number;
  #dueCount = 0;
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
    this.#keep = poolSize(policy.maxRequests);
  }

  add(candidate: RefreshCandidate): void {
    const assessed = this.#assess(candidate);
    if (assessed === null) {
      // Paged by this run's pass: a hot session is checked by that as by a refresh.
      if (tierOf(candidate, this.#now, this.#policy) === 'hot') this.#seenByPass.push(candidate.serviceId);
      return;
    }
    if (assessed.stale === null) return;
    this.#dueCount++;
    this.#due.push(assessed as Due);
    if (this.#due.length >= 2 * this.#keep) this.#cut();
  }

  /** Due sessions it holds now: at most twice `poolSize`, however many were added. */
  get held(): number {
    return this.#due.length;
  }

  /**
   * A non-final session inside one of the plan's repaged parts (`plan.repage`), read again by the caller: checked by
   * that part whether or not the planner held it.
   */
  cover(plan: RefreshPlan, candidate: RefreshCandidate): void {
    if (plan.checked.has(candidate.serviceId)) return;
    const assessed = this.#assess(candidate);
    if (assessed === null) return;
    plan.checked.set(candidate.serviceId, { tier: assessed.tier, interval: assessed.interval });
    if (assessed.stale !== null) plan.deferred--;
  }

  /** Its tier, back-off, staleness (null: not due) and window; null when this run's pass paged it. */
  #assess(candidate: RefreshCandidate): (Omit<Due, 'stale'> & { stale: number | null }) | null {
    const now = this.#now;
    const policy = this.#policy;
    const epoch = candidate.createdEpoch;
    if (epoch !== null && this.#alreadyPassed.some(([a, b]) => epoch >= a && epoch < b)) return null;
    const tier = tierOf(candidate, now, policy);
    return {
      serviceId: candidate.serviceId,
      epoch,
      tier,
      interval: intervalInEffect(candidate, tier, now, policy),
      stale: dueStaleness(candidate, tier, now, policy),
      window: epoch === null ? undefined : windowOf(this.#sorted, epoch),
    };
  }

  /** Keeps the `#keep` most urgent. */
  #cut(): void {
    this.#due.sort(byUrgency);
    if (this.#due.length > this.#keep) this.#due.length = this.#keep;
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
    this.#cut();
    const due = this.#due;
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
        const epoch = d.epoch!;
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
        get.push(d.serviceId);
        checked.set(d.serviceId, { tier: d.tier, interval: d.interval });
      }
    }
    const repage: Array<PassTask & { pages: number }> = [];
    for (const [w, part] of chosen) {
      if (part.pages === null) continue;
      const [passFrom, passTo] = pagesInPart(w)
        ? partRange(w, part.lo, part.hi, now)
        : [w.windowStart, Math.min(w.windowEnd, Math.ceil(now))];
      repage.push({ window: w, passFrom, passTo, resume: false, pages: part.pages });
    }
    const parts = new Map(repage.map((t) => [t.window, t]));
    for (const d of due) {
      const part = d.window && parts.get(d.window);
      if (part && inPart(part, d.epoch!)) checked.set(d.serviceId, { tier: d.tier, interval: d.interval });
    }
    const deferred = this.#dueCount - due.filter((d) => checked.has(d.serviceId)).length;
    return {
      repage,
      get,
      checked,
      seenByPass: this.#seenByPass,
      cost,
      naiveCost: this.#dueCount,
      due: this.#dueCount,
      deferred,
    };
  }
}

/** `RefreshPlanner` over a list of candidates, each repaged part covering those inside it. */
export function planRefresh(
  candidates: Iterable<RefreshCandidate>,
  windows: readonly WindowState[],
  alreadyPassed: ReadonlyArray<readonly [number, number]>,
  now: number,
  policy: RefreshPolicy,
): RefreshPlan {
  const all = [...candidates];
  const planner = new RefreshPlanner(windows, alreadyPassed, now, policy);
  for (const candidate of all) planner.add(candidate);
  const plan = planner.plan();
  for (const part of plan.repage)
    for (const c of all) if (c.createdEpoch !== null && inPart(part, c.createdEpoch)) planner.cover(plan, c);
  return plan;
}

/** Whether a created time lies in a repaged part. */
export const inPart = (part: Pick<PassTask, 'passFrom' | 'passTo'>, epoch: number): boolean =>
  epoch >= part.passFrom && epoch < part.passTo;

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
