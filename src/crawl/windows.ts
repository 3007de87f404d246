import type { ApiVersion, Resource } from '../normalize/rows.js';
import type { WindowSpec, WindowState } from '../store/sink.js';

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
export function missingWindows(scope: Scope, from: number, to: number, size: number, existing: readonly WindowState[]): WindowSpec[] {
  const sorted = [...existing].sort((a, b) => a.windowStart - b.windowStart);
  const gaps: WindowSpec[] = [];
  for (const [a, b] of gridCells(from, to, size)) {
    let cursor = a;
    for (const w of sorted) {
      if (w.windowEnd <= cursor || w.windowStart >= b) continue;
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
 * Where to split the unfetched rest of a window paged newest first. After a
 * page whose oldest item has epoch `oldest`, every item newer than
 * floor(oldest) + 1 has been seen; the rest lies in [windowStart,
 * floor(oldest) + 1). Returns the new boundary and the parts to page
 * separately, or null when the rest is too narrow to split.
 */
export function splitRemainder(
  windowStart: number,
  windowEnd: number,
  oldest: number,
  parts: number,
): { keepFrom: number; ranges: Array<[number, number]> } | null {
  // An item exactly on the end edge can come back (see requestRange): clamp.
  const keepFrom = Math.min(Math.floor(oldest) + 1, windowEnd);
  const width = keepFrom - windowStart;
  // Everything seen so far sits in the window's last second: nothing to hand over yet.
  if (width < 2 || parts < 2 || keepFrom >= windowEnd) return null;
  const n = Math.min(parts, width);
  const ranges: Array<[number, number]> = [];
  for (let i = 0; i < n; i++) {
    const a = windowStart + Math.floor((width * i) / n);
    const b = windowStart + Math.floor((width * (i + 1)) / n);
    if (b > a) ranges.push([a, b]);
  }
  return { keepFrom, ranges };
}
