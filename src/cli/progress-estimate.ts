/**
 * The pages the whole run will take: those paged, and those each account's
 * crawl expects still (its streams each at their own density of items, so
 * that the rest of a busy stretch is not judged by the empty windows paged in
 * a page each; the crawl's figure improves as windows finish). Undefined
 * until a crawl has an estimate. Counting covered time instead jumped from 1%
 * to 20% in the first second.
 */
export function estimateTotalPages(pagesDone: number, pagesLeft: Iterable<number | null>): number | undefined {
  let left = 0;
  let known = false;
  for (const pages of pagesLeft) {
    if (pages === null || !Number.isFinite(pages)) continue;
    left += Math.max(0, pages);
    known = true;
  }
  return known ? pagesDone + left : undefined;
}

/** Shown short of 100% until the run has ended: an estimate is never the end. */
const CEILING = 0.99;

/**
 * The fraction the bar shows: the estimate's, but never less than shown
 * before (a bar going backwards reads as lost work) and below 100% until done.
 */
export function shownFraction(
  previous: number,
  pagesDone: number,
  estimatedTotal: number | undefined,
  done: boolean,
): number {
  if (done) return 1;
  if (estimatedTotal === undefined || estimatedTotal <= 0) return previous;
  return Math.max(previous, Math.min(CEILING, pagesDone / estimatedTotal));
}

/** How far a new reading moves the ETA: a fifth, so that one slow page or a 429 pause does not swing it. */
const SMOOTHING = 0.2;

/**
 * The ETA in seconds, smoothed: the previous one counted down by the time
 * since, then moved part of the way to what the current rate says (the pages
 * left at this run's pages per second). Undefined while there is no rate.
 */
export function smoothedEta(
  previous: number | undefined,
  sinceSeconds: number,
  pagesLeft: number | undefined,
  pagesPerSecond: number,
): number | undefined {
  if (pagesLeft === undefined || !(pagesPerSecond > 0) || !Number.isFinite(pagesLeft))
    return previous === undefined ? undefined : Math.max(0, previous - sinceSeconds);
  const raw = Math.max(0, pagesLeft) / pagesPerSecond;
  if (previous === undefined) return raw;
  const counted = Math.max(0, previous - sinceSeconds);
  return counted + SMOOTHING * (raw - counted);
}

/** `45s`, `3m 05s`, `2h 07m`: never a placeholder, so only called with a number. */
export function formatEta(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
