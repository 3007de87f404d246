import type { NormalizedBatch } from '../../normalize/rows.js';
import type { PageCommit, WindowKey } from '../../store/sink.js';

/** Where one page of a span's stream lands among the span's windows. */
export interface PageAssignment {
  /** Per item: the index of the window it is committed with. */
  windowOf: number[];
  /** Windows from the page's current one up to (not including) this index completed their pass. */
  doneBefore: number;
  /** The last window the page reached: the new current window, which holds the cursor unless done. */
  through: number;
  /** Every epoch at or above this has been seen (the span's floor once complete). */
  position: number;
}

/**
 * Pages come newest first (created time), so after a page whose oldest item
 * has epoch `oldest`, every item newer than floor(oldest) + 1 has been seen:
 * the windows above that edge are complete, whatever follows. Items are
 * committed with the window their epoch falls in; items without an epoch,
 * or outside the windows left (an edge second the request range adds, a
 * part handed to another stream), with the nearest window of the page.
 *
 * @param windows the span's windows, newest first, contiguous ([lo, hi) each)
 * @param current the first window not yet complete
 * @param epochs the created epochs of the page's items (null when unknown)
 * @param last whether the page was the last (null cursor): then every window is complete
 */
export function assignPage(
  windows: ReadonlyArray<{ lo: number; hi: number }>,
  current: number,
  position: number,
  epochs: ReadonlyArray<number | null>,
  last: boolean,
): PageAssignment {
  const bottom = windows.length - 1;
  const floor = windows[bottom]!.lo;
  let oldest = Infinity;
  for (const e of epochs) if (e !== null && e < oldest) oldest = e;
  const edge = oldest === Infinity ? position : Math.min(position, Math.floor(oldest) + 1);
  const complete = last || edge <= floor;
  let through = current;
  if (complete) through = bottom;
  else while (through < bottom && windows[through]!.lo >= edge) through++;
  const windowOf = epochs.map((e) => {
    if (e === null) return current;
    let i = current;
    while (i < through && windows[i]!.lo > e) i++;
    return i;
  });
  return {
    windowOf,
    doneBefore: complete ? windows.length : through,
    through,
    position: complete ? floor : Math.max(edge, floor),
  };
}

/**
 * The commits of one page: one per window from `asked` (the window the page
 * was asked for, which counts it) to the last it reached, each with its own
 * items; the windows it completed are done, the last one open takes the
 * cursor. They go into one transaction.
 */
export function pageCommits(
  keys: readonly WindowKey[],
  asked: number,
  assigned: PageAssignment,
  batch: NormalizedBatch,
  nextCursor: PageCommit['nextCursor'],
  now: string,
): PageCommit[] {
  const commits: PageCommit[] = [];
  for (let i = asked; i <= assigned.through; i++) {
    const done = i < assigned.doneBefore;
    commits.push({
      key: keys[i]!,
      batch: {
        sessions: batch.sessions.filter((_, k) => assigned.windowOf[k] === i),
        rejected: i === asked ? batch.rejected : [],
      },
      nextCursor: done ? null : nextCursor,
      done,
      now,
      pages: i === asked ? 1 : 0,
    });
  }
  return commits;
}
