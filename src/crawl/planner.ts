import { PAGE_SIZE } from '../config/constants.js';
import type { NonFinalSession, WindowState } from '../store/sink.js';

/** One pass to run over (part of) a window. */
export interface PassTask {
  window: WindowState;
  passFrom: number;
  passTo: number;
  /** Continue the interrupted pass from the window's stored cursor instead of starting over. */
  resume: boolean;
}


function clampTo(window: WindowState, now: number): number {
  return Math.min(window.windowEnd, Math.ceil(now));
}

/**
 * A pass can be resumed when it was interrupted with a cursor and already
 * covers what is needed now; otherwise it starts over.
 */
function continueOrStart(window: WindowState, passFrom: number, passTo: number): PassTask {
  const resumable =
    window.status === 'running' &&
    window.cursor !== null &&
    window.passFrom !== null &&
    window.passTo !== null &&
    window.passFrom <= passFrom &&
    window.passTo >= passTo;
  return resumable
    ? { window, passFrom: window.passFrom!, passTo: window.passTo!, resume: true }
    : { window, passFrom, passTo, resume: false };
}

/** Backfill: every window of the interval that has not completed a pass. */
export function planBackfill(windows: readonly WindowState[], now: number): PassTask[] {
  return windows
    .filter((w) => w.status !== 'done' && w.status !== 'sealed' && w.windowStart < now)
    .map((w) => continueOrStart(w, w.windowStart, clampTo(w, now)));
}

/**
 * Incremental sync: a pass over [from, now) in every window that intersects
 * it and is not sealed; in a window only partly inside, only the part inside.
 * A window outside that range that has no complete pass (reopened by
 * `verify --repair`, left by an interrupted run) gets a pass over all of it:
 * nothing else would ever page it again.
 */
export function planIncremental(windows: readonly WindowState[], from: number, now: number): PassTask[] {
  return windows
    .filter((w) => w.status !== 'sealed' && w.windowStart < now && (w.windowEnd > from || w.status !== 'done'))
    .map((w) =>
      w.windowEnd > from
        ? continueOrStart(w, Math.max(w.windowStart, Math.floor(from)), clampTo(w, now))
        : continueOrStart(w, w.windowStart, clampTo(w, now)),
    );
}

export interface RefreshPlan {
  /** Windows to page again in full: cheaper than one GET per non-final session in them. */
  repage: PassTask[];
  /** Sessions to GET one by one. */
  get: string[];
  /** Requests the plan costs, and what GETting everything would have cost. */
  cost: number;
  naiveCost: number;
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

/**
 * Refresh of sessions whose result is not final, choosing per window the
 * cheaper way by counting requests: page the window again (25 sessions a
 * request, its item count from the last pass) or GET each (1 a request).
 * Sessions inside `alreadyPassed` ranges were just seen by this run.
 */
export function planRefresh(
  nonFinal: readonly NonFinalSession[],
  windows: readonly WindowState[],
  alreadyPassed: ReadonlyArray<readonly [number, number]>,
  now: number,
): RefreshPlan {
  const sorted = [...windows].sort((a, b) => a.windowStart - b.windowStart);
  const passed = (epoch: number) => alreadyPassed.some(([a, b]) => epoch >= a && epoch < b);
  const byWindow = new Map<WindowState, string[]>();
  const get: string[] = [];
  let naiveCost = 0;
  for (const session of nonFinal) {
    const epoch = session.createdEpoch;
    if (epoch !== null && passed(epoch)) continue;
    naiveCost++;
    const window = epoch === null ? undefined : windowOf(sorted, epoch);
    if (!window) {
      get.push(session.serviceId);
      continue;
    }
    const ids = byWindow.get(window) ?? [];
    ids.push(session.serviceId);
    byWindow.set(window, ids);
  }
  const repage: PassTask[] = [];
  let cost = get.length;
  for (const [window, ids] of byWindow) {
    const pageCost = Math.max(1, Math.ceil(window.items / PAGE_SIZE));
    if (pageCost < ids.length) {
      repage.push({ window, passFrom: window.windowStart, passTo: clampTo(window, now), resume: false });
      cost += pageCost;
    } else {
      get.push(...ids);
      cost += ids.length;
    }
  }
  return { repage, get, cost, naiveCost };
}

/**
 * Windows to seal: completely passed, older than the overlap, and holding no
 * non-final session. A sealed window is never fetched again.
 */
export function planSeal(
  windows: readonly WindowState[],
  nonFinal: readonly NonFinalSession[],
  now: number,
  overlapSeconds: number,
): WindowState[] {
  const cutoff = now - overlapSeconds;
  const epochs = nonFinal
    .map((s) => s.createdEpoch)
    .filter((e): e is number => e !== null)
    .sort((a, b) => a - b);
  // Whether any non-final epoch lies in [a, b): the first epoch >= a, by binary search.
  const holdsNonFinal = (a: number, b: number) => {
    let lo = 0;
    let hi = epochs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (epochs[mid]! < a) lo = mid + 1;
      else hi = mid;
    }
    return lo < epochs.length && epochs[lo]! < b;
  };
  return windows.filter(
    (w) =>
      w.status === 'done' &&
      w.windowEnd <= cutoff &&
      w.syncedTo !== null &&
      w.syncedTo >= w.windowEnd &&
      !holdsNonFinal(w.windowStart, w.windowEnd),
  );
}
