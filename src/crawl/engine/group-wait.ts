/**
 * Pages a group should expect within the gap for waiting to be worth it: at
 * the service's own limit (ten pages a second for a token, a few tokens at
 * most) pages arrive further apart, and a page that waited would only hold its
 * stream back. With a fixed 100 ms wait a sparse 1.5k backfill at 150 ms
 * measured 0.941 of the limit against 0.985 without (on a loaded machine, where
 * runs of one build differ as much, but a wait cannot make it faster).
 */
export const PAGES_WORTH_WAITING = 4;

/** Weight of the newest interval in the mean time between arrivals. */
export const ARRIVAL_WEIGHT = 0.2;

export interface GroupState {
  /** Now, ms. */
  now: number;
  /** When the last transaction started, ms (-Infinity before the first). */
  lastStart: number;
  /** Least ms between the starts of two transactions when pages come fast. */
  gapMs: number;
  /** Fetched pages waiting (a page of several windows is one), and the most one transaction takes. */
  waitingPages: number;
  maxPages: number;
  /** Mean ms between two fetched pages' arrivals, null before two arrived. */
  arrivalMs: number | null;
  /**
   * The request streams open in the process: when every stream's page waits here, no page can arrive before the
   * transaction starts. @default not known
   */
  openStreams?: number;
}

/**
 * How long the waiting pages wait before their transaction starts: 0 when
 * they arrive slowly (fewer than PAGES_WORTH_WAITING expected in the gap),
 * when the group is full, when every open stream's page is waiting (none
 * can come), or when the gap since the last start has passed.
 */
export function groupWaitMs(s: GroupState): number {
  if (s.waitingPages >= s.maxPages) return 0;
  if (s.openStreams !== undefined && s.waitingPages >= s.openStreams) return 0;
  if (s.arrivalMs === null || s.arrivalMs * PAGES_WORTH_WAITING > s.gapMs) return 0;
  return Math.max(0, s.lastStart + s.gapMs - s.now);
}

/** The mean time between arrivals after a page arrived `sinceLastMs` after the previous one. */
export function nextArrivalMs(mean: number | null, sinceLastMs: number): number {
  return mean === null ? sinceLastMs : mean + ARRIVAL_WEIGHT * (sinceLastMs - mean);
}
