import { CursorLoopError } from './errors.js';
import type { SearchPage } from './service-client.js';

export type PageFetcher = (cursor: string | null) => Promise<SearchPage>;

/**
 * Follows `next_cursor` from `start` until it is null. A generator, so it is
 * lazy: the next page is requested only when the consumer asks for it, and a
 * consumer that stops early leaves no request behind.
 *
 * A cursor seen before in this pass means the service would hand out the same
 * pages forever; that page is not yielded (its cursor must not become a
 * checkpoint) and CursorLoopError is thrown instead.
 */
export async function* cursorPages(fetchPage: PageFetcher, start: string | null, route: string): AsyncGenerator<SearchPage, void, undefined> {
  const seen = new Set<string>();
  let cursor = start;
  if (cursor !== null) seen.add(cursor);
  for (;;) {
    const page = await fetchPage(cursor);
    if (page.nextCursor !== null) {
      if (seen.has(page.nextCursor)) throw new CursorLoopError({ route, cursor: page.nextCursor });
      seen.add(page.nextCursor);
    }
    yield page;
    if (page.nextCursor === null) return;
    cursor = page.nextCursor;
  }
}
