/** One search page the simulator answered 200 with its whole body. */
export interface ServedPage {
  /** Position in the log, from 0. */
  seq: number;
  /** Value of the simulator's request counter when the request arrived. */
  request: number;
  /** Method and templated path, e.g. `POST /v1/search/authentications`. */
  route: string;
  /** `range` of the request as sent (null when absent). */
  range: unknown;
  /** `cursor` of the request as sent (null for a first page). */
  cursor: unknown;
  /** `next_cursor` of the answer (null on a last page). */
  nextCursor: unknown;
  items: number;
}

/**
 * The log of search pages served in full. A truncated body is not one: the
 * client cannot use it and asks again. Tests read which (range, cursor)
 * pairs were fetched, and how often, to check that a resumed crawl asks only
 * for pages it had not committed.
 */
export class ServedPages {
  readonly pages: ServedPage[] = [];

  record(route: string, request: number, requestText: string | null, replyBody: unknown): void {
    const sent = parseObject(requestText);
    const answer = typeof replyBody === 'object' && replyBody !== null ? (replyBody as Record<string, unknown>) : {};
    this.pages.push({
      seq: this.pages.length,
      request,
      route,
      range: sent['range'] ?? null,
      cursor: sent['cursor'] ?? null,
      nextCursor: answer['next_cursor'] ?? null,
      items: Array.isArray(answer['items']) ? answer['items'].length : 0,
    });
  }
}

function parseObject(text: string | null): Record<string, unknown> {
  if (text === null || text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
