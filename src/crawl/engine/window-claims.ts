import type { WindowSpec } from '../../store/sink.js';

/** The part of a window a claim is about: its scope and its range. */
export type ClaimedWindow = Pick<WindowSpec, 'account' | 'resource' | 'apiVersion' | 'windowStart' | 'windowEnd'>;

/**
 * Of `wanted`, the windows that overlap no window in `taken` of the same
 * account, resource and interface. Ranges rather than keys: a window a
 * crawl splits while paging stays inside the range it claimed.
 */
export function unclaimed<W extends ClaimedWindow>(wanted: readonly W[], taken: readonly ClaimedWindow[]): W[] {
  const sameScope = (a: ClaimedWindow, b: ClaimedWindow) =>
    a.account === b.account && a.resource === b.resource && a.apiVersion === b.apiVersion;
  const overlap = (a: ClaimedWindow, b: ClaimedWindow) => a.windowStart < b.windowEnd && b.windowStart < a.windowEnd;
  return wanted.filter((w) => !taken.some((t) => sameScope(t, w) && overlap(t, w)));
}

/**
 * The windows the runs of one process are paging, so that two runs of the
 * process never page the same window: a daemon's scheduled sync leaves the
 * windows its background backfill planned to it (and the backfill those a
 * sync took first), instead of fetching them both. Across processes the
 * account lease keeps runs apart.
 */
export class WindowClaims {
  readonly #byRun = new Map<string, ClaimedWindow[]>();

  /** Claims for `run` the windows of `wanted` no other run holds, and returns them. */
  claim<W extends ClaimedWindow>(run: string, wanted: readonly W[]): W[] {
    const taken = [...this.#byRun].flatMap(([holder, windows]) => (holder === run ? [] : windows));
    const mine = unclaimed(wanted, taken);
    this.#byRun.set(run, [...(this.#byRun.get(run) ?? []), ...mine.map(rangeOf)]);
    return mine;
  }

  /** Gives back every window `run` claimed. */
  release(run: string): void {
    this.#byRun.delete(run);
  }
}

function rangeOf(w: ClaimedWindow): ClaimedWindow {
  const { account, resource, apiVersion, windowStart, windowEnd } = w;
  return { account, resource, apiVersion, windowStart, windowEnd };
}

/** The tasks whose window `run` could claim: all of them when the process keeps no claims. */
export function claimTasks<T extends { window: ClaimedWindow }>(
  claims: WindowClaims | undefined,
  run: string | undefined,
  tasks: readonly T[],
): T[] {
  if (claims === undefined || run === undefined) return [...tasks];
  const mine = new Set(
    claims.claim(
      run,
      tasks.map((t) => t.window),
    ),
  );
  return tasks.filter((t) => mine.has(t.window));
}
