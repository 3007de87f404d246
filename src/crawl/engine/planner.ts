import type { WindowState } from '../../store/sink.js';
import { firstAtOrAfter } from './sorted-epochs.js';

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

/**
 * Windows to seal: completely passed, older than the overlap, and holding no
 * non-final session. A sealed window is never fetched again.
 */
export function planSeal(
  windows: readonly WindowState[],
  /** Created times of the non-final sessions, ascending. */
  epochs: ArrayLike<number>,
  now: number,
  overlapSeconds: number,
): WindowState[] {
  const cutoff = now - overlapSeconds;
  // Whether any non-final epoch lies in [a, b): the first epoch >= a, by binary search.
  const holdsNonFinal = (a: number, b: number) => {
    const at = firstAtOrAfter(epochs, a);
    return at < epochs.length && epochs[at]! < b;
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
