import { PAGE_SIZE } from '../../config/constants.js';
import type { Resource } from '../../normalize/rows.js';
import type { Stream } from './stream.js';

/**
 * Items per epoch second, as the crawl has seen them: what a stream's rest is
 * expected to cost in pages. A stream that has not seen a full page yet
 * borrows its resource's density; an unknown one stays null rather than
 * guessed, so that nothing is cut on a guess.
 */
export class ItemDensity {
  /** Items and epoch seconds seen per resource. */
  readonly #seen = new Map<Resource, { items: number; seconds: number }>();

  /** A page of `items` covering `seconds` of `resource` was seen. */
  add(resource: Resource, items: number, seconds: number): void {
    const seen = this.#seen.get(resource) ?? { items: 0, seconds: 0 };
    this.#seen.set(resource, { items: seen.items + items, seconds: seen.seconds + seconds });
  }

  /** The density of `resource` (of all resources when null), once a full page of it was seen; else null. */
  of(resource: Resource | null): number | null {
    let items = 0;
    let seconds = 0;
    for (const [r, seen] of this.#seen) {
      if (resource !== null && r !== resource) continue;
      items += seen.items;
      seconds += seen.seconds;
    }
    return items >= PAGE_SIZE && seconds > 0 ? items / seconds : null;
  }

  /** The stream's own items per second once it saw a full page, else its resource's, else null. */
  ofStream(stream: Pick<Stream, 'resource' | 'items' | 'covered'>): number | null {
    if (stream.items >= PAGE_SIZE && stream.covered > 0) return stream.items / stream.covered;
    return this.of(stream.resource);
  }
}

/**
 * What a page of `items` covering `seconds` down to `bottom` (where it left the
 * stream) tells of the density. A stream's first page (`first`) is timed from
 * its newest session (`epochs`: the page's sessions' created epochs), the
 * stretch above it taken as one more gap of the page's mean: a backfill to
 * now begins above the history's newest session, and that stretch, counted
 * whole, made a uniform year look a third as dense from its first page.
 */
export function pageDensity(
  first: boolean,
  epochs: ReadonlyArray<number | null>,
  items: number,
  seconds: number,
  bottom: number,
): { items: number; seconds: number } {
  if (!first || items < 2) return { items, seconds };
  let newest = -Infinity;
  for (const epoch of epochs) if (epoch !== null && epoch > newest) newest = epoch;
  const spanned = newest - bottom;
  if (!(spanned > 0) || spanned >= seconds) return { items, seconds };
  return { items, seconds: Math.min(seconds, (spanned * items) / (items - 1)) };
}

/**
 * A stream's items and seconds after a page: what it had seen, each page's
 * weight a quarter less than the next's, and the page. Its rest is priced
 * at the density of its last few pages (about four), not of all it and the
 * stream it came from ever saw: a stream cut from a year of sparse history
 * into a three-day burst of 8,000 sessions carried the year's density, so its
 * rest looked a few pages long, nothing outlasted anything, and the burst was
 * paged by the few streams that reached it: at 1 s a 10k backfill with that
 * burst took 62 s (0.644 of the limit), at 150 ms 48 s (0.828); priced by its
 * last pages, 43.9 and 41.2 s (0.91, 0.97). A uniform history pages the same.
 */
export function afterPage(
  seen: { items: number; covered: number },
  page: { items: number; seconds: number },
): { items: number; covered: number } {
  return { items: seen.items * DECAY + page.items, covered: seen.covered * DECAY + page.seconds };
}

/** The weight of a page against the one after it. */
const DECAY = 0.75;
