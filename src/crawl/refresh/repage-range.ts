import { PAGE_SIZE } from '../../config/constants.js';
import type { WindowState } from '../../store/sink.js';

/**
 * What paging part of a window again costs, in requests. A refresh that
 * needs the sessions of a day inside a week's window pages that day, not the
 * week: the range runs from the first due session to just past the last, and
 * its pages are estimated from the items the window's last pass saw over the
 * range it covered.
 */

/** Items per second of created time in the window, from its last pass; null when that pass saw nothing to go by. */
export function windowDensity(window: WindowState): number | null {
  const from = Math.max(window.passFrom ?? window.windowStart, window.windowStart);
  const to = Math.min(window.passTo ?? window.windowEnd, window.windowEnd);
  const seconds = to > from ? to - from : window.windowEnd - window.windowStart;
  return seconds > 0 && window.items > 0 ? window.items / seconds : null;
}

/** Only a window whose last pass completed can be paged in part: its coverage below the part is known. */
export function pagesInPart(window: WindowState): boolean {
  return window.status === 'done' && window.syncedTo !== null;
}

/**
 * The range paging sessions created in [lo, hi] asks for: whole seconds (as
 * window bounds are), past the last one, inside the window.
 */
export function partRange(window: WindowState, lo: number, hi: number, now: number): [number, number] {
  return [Math.max(window.windowStart, Math.floor(lo)), Math.min(window.windowEnd, Math.ceil(now), Math.floor(hi) + 1)];
}

/**
 * Items the window holds now, as far as its last pass tells: what that pass
 * counted when it covered the whole window, else its density over the
 * window's span up to now. A refresh's pass covers only a part, and its count
 * is the part's, not the window's.
 */
export function windowItems(window: WindowState, now: number): number {
  const end = Math.min(window.windowEnd, Math.ceil(now));
  const from = window.passFrom ?? window.windowStart;
  const to = window.passTo ?? window.windowEnd;
  if (from <= window.windowStart && to >= end) return window.items;
  const density = windowDensity(window);
  return density === null ? window.items : Math.max(window.items, density * Math.max(0, end - window.windowStart));
}

/**
 * Requests that paging [lo, hi] of the window again takes: at least one, the
 * whole window when it cannot be paged in part. A part starts and ends at
 * due sessions, so it holds those two (one when lo is hi) on top of what the
 * density gives the seconds between them; left out, every part was estimated
 * about two sessions short, and a run sent more pages than its plan.
 */
export function partPages(window: WindowState, lo: number, hi: number, now: number): number {
  const whole = Math.max(1, Math.ceil(windowItems(window, now) / PAGE_SIZE));
  if (!pagesInPart(window)) return whole;
  const density = windowDensity(window);
  if (density === null) return 1;
  const [from, to] = partRange(window, lo, hi, now);
  const endpoints = hi > lo ? 2 : 1;
  return Math.min(whole, Math.max(1, Math.ceil((density * (to - from) + endpoints) / PAGE_SIZE)));
}
