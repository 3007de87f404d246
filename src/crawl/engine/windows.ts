import type { ApiVersion, Resource } from '../../normalize/rows.js';
import type { WindowSpec, WindowState } from '../../store/sink.js';

/**
 * Windows are cells of a grid of `size` seconds aligned to epoch 0, so runs
 * with different bounds reuse the same checkpoints. Dense cells may be split
 * further (see splitRemainder); the pieces always partition their cell.
 */
export function gridStart(epoch: number, size: number): number {
  return Math.floor(epoch / size) * size;
}

/** The grid cells that hold any time of the closed interval [from, to]. */
export function gridCells(from: number, to: number, size: number): Array<[number, number]> {
  const cells: Array<[number, number]> = [];
  for (let start = gridStart(from, size); start <= to; start += size) cells.push([start, start + size]);
  return cells;
}

export interface Scope {
  account: string;
  resource: Resource;
  apiVersion: ApiVersion;
}

/**
 * The windows to insert so that [from, to] is covered: the parts of every
 * grid cell that no existing window covers. Usually a whole cell; after the
 * window size was changed, the gaps between the windows of the old size.
 */
export function missingWindows(
  scope: Scope,
  from: number,
  to: number,
  size: number,
  existing: readonly WindowState[],
): WindowSpec[] {
  const sorted = [...existing].sort((a, b) => a.windowStart - b.windowStart);
  const gaps: WindowSpec[] = [];
  // Cells and windows both ascend: the first window that can reach into a
  // cell only moves forward, so each is looked at about once, and no array of
  // cells is built (gridCellCount in config/interval.ts says how many there will be).
  let first = 0;
  for (let a = gridStart(from, size); a <= to; a += size) {
    const b = a + size;
    while (first < sorted.length && sorted[first]!.windowEnd <= a) first++;
    let cursor = a;
    for (let i = first; i < sorted.length; i++) {
      const w = sorted[i]!;
      if (w.windowStart >= b) break;
      if (w.windowEnd <= cursor) continue;
      if (w.windowStart > cursor) gaps.push({ ...scope, windowStart: cursor, windowEnd: w.windowStart });
      cursor = Math.max(cursor, w.windowEnd);
      if (cursor >= b) break;
    }
    if (cursor < b) gaps.push({ ...scope, windowStart: cursor, windowEnd: b });
  }
  return gaps;
}

/**
 * The `range` to request for a pass over [from, to). Whether the service's
 * range is inclusive or exclusive at either end is not documented, and items
 * can have integer epochs: asking from `from - 1` and up to `to` keeps every
 * item of [from, to) under all four readings. The price is that an item
 * exactly on an edge may come back in both neighbours, which the merge makes
 * harmless.
 */
export function requestRange(from: number, to: number): { start: number; end: number } {
  return { start: Math.floor(from) - 1, end: Math.ceil(to) };
}

/**
 * The windows a split of a paging window creates. After the pages so far,
 * every item at or above `keepFrom` has been seen (the crawl tracks it as
 * floor(oldest) + 1 of the oldest item): the window keeps [keepFrom,
 * windowEnd) as done, and its unfetched rest [windowStart, keepFrom) is cut
 * at `at` into two windows paged apart. Null when there is nothing to cut:
 * the rest is narrower than two seconds or `at` is not inside it.
 */
export function splitRemainder(
  windowStart: number,
  windowEnd: number,
  keepFrom: number,
  at: number,
): { keepFrom: number; ranges: Array<[number, number]> } | null {
  if (!(windowStart < at && at < keepFrom && keepFrom < windowEnd)) return null;
  if (!Number.isInteger(at) || !Number.isInteger(keepFrom)) return null;
  return {
    keepFrom,
    ranges: [
      [windowStart, at],
      [at, keepFrom],
    ],
  };
}
