import { PAGE_LIMIT as PAGE_SIZE } from '../api/route-book.js';

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
 * (hand-over) or, inside the current window, a second (split) allows, with
 * the upper part a whole number of pages when the density is known. Each
 * part must be expected to hold a page at least: a rest that fits in a
 * couple of pages is not worth a second partial page. Without a density,
 * only whole windows are handed over.
 */
export function planCut(input: CutInput): Cut | null {
  const { windows, started, current, position, density, canSplit } = input;
  const floor = windows[windows.length - 1]!.lo;
  const rest = position - floor;
  if (!(rest > 0)) return null;
  const minSeconds = density === null ? 0 : PAGE_SIZE / density;
  if (rest < 2 * minSeconds) return null;
  let target = position - rest / 2;
  if (density !== null) {
    // The upper part a whole number of pages (at least one), the lower part the rest.
    const pages = Math.max(1, Math.round((rest * density) / 2 / PAGE_SIZE));
    target = position - (pages * PAGE_SIZE) / density;
  }
  const fits = (at: number) => at - floor >= minSeconds && position - at >= minSeconds && at > floor && at < position;
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
    // Only better than a window edge by more than a page: a hand-over keeps the windows whole.
    if (at > window.lo && fits(at) && Math.abs(at - target) + minSeconds < bestMiss) best = { kind: 'split', at };
  }
  return best;
}
