import { PAGE_SIZE } from '../../config/constants.js';
import type { WindowState } from '../../store/sink.js';
import { firstAfter, firstAtOrAfter } from '../engine/sorted-epochs.js';
import { requestRange } from '../engine/windows.js';

/**
 * What paging part of a window again costs, in requests. A refresh that
 * needs the sessions of a day inside a week's window pages that day, not the
 * week: the range runs from the first due session to just past the last. Its
 * pages are counted from the window's stored sessions when the planner has
 * read them (`knownPartPages`), else estimated from the items the window's
 * last pass saw over the range it covered (`partPages`).
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

/** Requests paging a range of `items` sessions takes: a page of 25 each, and one for none. */
function pagesFor(items: number): number {
  return Math.max(1, Math.ceil(items / PAGE_SIZE));
}

/** How many of the ascending `epochs` fall in [from, to], both ends included, by binary search. */
export function countWithin(epochs: Float64Array, from: number, to: number): number {
  return to >= from ? firstAfter(epochs, to) - firstAtOrAfter(epochs, from) : 0;
}

/**
 * The created times whose stored sessions `knownPartPages` counts for a window: every one a request for a part
 * of it can return. `requestRange` asks from the second below a part's start up to its end, whatever the
 * service's reading of the range's ends, so the sessions of the window's neighbours within a second of it count.
 */
export function epochReach(window: WindowState): { from: number; to: number } {
  return { from: window.windowStart - 1, to: window.windowEnd + 1 };
}

/**
 * `partPages` counted from the created times of the window's stored
 * sessions (`epochs`, read over its `epochReach`): exact as far as the target holds what the service
 * does. A history that starts inside a window, or a burst, makes the
 * window's density wrong for a part of it, and a run sent more than its
 * budget on that estimate. What is counted is what the part's request may return: the sessions of
 * `requestRange`, both its ends included; a session in the second below the part once made a 26th item and a
 * page the plan had not counted.
 */
export function knownPartPages(window: WindowState, epochs: Float64Array, lo: number, hi: number, now: number): number {
  const [from, to] = pagesInPart(window)
    ? partRange(window, lo, hi, now)
    : [window.windowStart, Math.min(window.windowEnd, Math.ceil(now))];
  const { start, end } = requestRange(from, to);
  return pagesFor(countWithin(epochs, start, end));
}
