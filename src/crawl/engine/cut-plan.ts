import { PAGE_LIMIT as PAGE_SIZE } from '../../api/route-book.js';

/** A stream's claim as the cut sees it. */
export interface CutInput {
  /** The stream's windows, newest first, contiguous ([lo, hi) each). */
  windows: ReadonlyArray<{ lo: number; hi: number }>;
  /** Windows before this index began their pass in this stream; only later ones can be handed over. */
  started: number;
  /** The first window not yet complete. */
  current: number;
  /** Every epoch at or above this has been seen. */
  position: number;
  /** Items per second of epoch seen so far, or null before the first full page. */
  density: number | null;
  /**
   * The stream stands between two pages and its current window may be split
   * (its pass covers the window from the start, and enough of it was paged to
   * trust the density): the stream then stops, and the window's unfetched
   * rest is cut in two.
   */
  canSplit: boolean;
}

export type Cut =
  /** Windows from `at` on go to a new stream; the stream stops below them. */
  | { kind: 'hand-over'; at: number }
  /** Stop the stream; [lo of the current window, at) and [at, position) are new windows, paged apart. */
  | { kind: 'split'; at: number };

/**
 * Where to cut a stream's unfetched rest [floor, position) in two so that
 * another stream can take part of it: as near the middle as a window edge
 * (hand-over) or, inside the current window, a second (split) allows. With a
 * known density the upper part is a whole number of pages, so that only the
 * lower part ends in a partial page. A rest expected to fit in one page is
 * never cut (that would only add a request); one under two pages is cut in
 * the middle: two requests either way, at once instead of one after the
 * other. Without a density only whole windows are handed over.
 */
export function planCut(input: CutInput): Cut | null {
  const { windows, started, current, position, density, canSplit } = input;
  const floor = windows[windows.length - 1]!.lo;
  const rest = position - floor;
  if (!(rest > 0)) return null;
  const pageSeconds = density === null ? 0 : PAGE_SIZE / density;
  if (rest <= pageSeconds) return null;
  // Lopsided cuts only add a stream that is soon done: each part a quarter of the rest at least.
  const minSeconds = Math.max(pageSeconds / 2, rest / 4);
  const fits = (at: number) => at - floor >= minSeconds && position - at >= minSeconds && at > floor && at < position;
  let target = position - rest / 2;
  if (density !== null && rest >= 2 * pageSeconds) {
    // A split's upper part sends first, its lower part a slot later: of two cuts that leave the longer part as
    // many requests, the one with more pages above ends a slot sooner (2.8 pages: 2 above and 0.8 below end two
    // round trips after the cut, 1 and 1.8 a slot later, the lower part's second request waiting on its first).
    const half = rest / pageSeconds / 2;
    const larger = position - Math.ceil(half) * pageSeconds;
    target = fits(larger) ? larger : position - Math.round(half) * pageSeconds;
  }
  let best: Cut | null = null;
  let bestMiss = Infinity;
  for (let i = Math.max(started, current + 1); i < windows.length; i++) {
    const at = windows[i]!.hi;
    const miss = Math.abs(at - target);
    if (fits(at) && miss < bestMiss) {
      best = { kind: 'hand-over', at: i };
      bestMiss = miss;
    }
  }
  if (canSplit && density !== null) {
    const window = windows[current]!;
    const at = Math.min(Math.max(Math.round(target), window.lo + 1), Math.floor(position) - 1);
    // Only better than a window edge by more than half a page: a hand-over keeps the windows whole.
    if (at > window.lo && fits(at) && Math.abs(at - target) + minSeconds < bestMiss) best = { kind: 'split', at };
  }
  return best;
}
