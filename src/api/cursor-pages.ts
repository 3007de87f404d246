import { cursorKey } from './cursor.js';
import type { Cursor } from './cursor.js';
import { CursorLoopError } from './errors.js';
import type { SearchPage } from './service-client.js';

export type PageFetcher = (cursor: Cursor | null) => Promise<SearchPage>;

/**
 * Follows `next_cursor` from `start` until a page ends the pass (its cursor is
 * null: the envelope reader turns every end marker into null). A generator,
 * so it is lazy: the next page is requested only when the consumer asks for
 * it, and a consumer that stops early leaves no request behind.
 *
 * A cursor seen before in this pass means the service would hand out the same
 * pages forever; that page is not yielded (its cursor must not become a
 * checkpoint) and CursorLoopError is thrown instead. Cursors are compared as
 * values (canonical JSON), since an array or object cursor is a new object on
 * every page.
 */
export async function* cursorPages(
  fetchPage: PageFetcher,
  start: Cursor | null,
  route: string,
): AsyncGenerator<SearchPage, void, undefined> {
  const seen = new Set<string>();
  let cursor = start;
  if (cursor !== null) seen.add(cursorKey(cursor));
  for (;;) {
    const page = await fetchPage(cursor);
    // Not the page: what the generator keeps while the consumer holds it (a crawl, until its commit).
    const next = page.nextCursor;
    if (next !== null) {
      const key = cursorKey(next);
      if (seen.has(key)) throw new CursorLoopError({ route, cursor: next });
      seen.add(key);
    }
    yield page;
    if (next === null) return;
    cursor = next;
  }
}
