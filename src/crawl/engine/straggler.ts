/** A stream's rest and the crawl's, as the straggler rule weighs them. */
export interface Rests {
  /** Pages the stream is expected to take still. */
  restPages: number;
  /** The service's round trip, from a request's token to its page. */
  roundTripMs: number;
  /** Pages every stream of the crawl is expected to take still, this one's among them. */
  pagesLeft: number;
  /** Milliseconds between two of the bucket's starts. */
  spacingMs: number;
}

/**
 * Whether a stream would still be paging after the bucket could have served
 * all the work left. A stream fetches its pages one after another, a round
 * trip each, while the bucket serves all streams at one request per
 * `spacingMs`; a stream whose rest takes longer than that ends the crawl
 * alone, one page per round trip, with the bucket idle. Such a stream is cut
 * even while the bucket is full, so that at any latency the streams end
 * together: near the end, a rest of two pages at one second a round trip
 * becomes two requests at once. A rest is as many round trips as the
 * requests it takes: 1.1 pages are two requests, one after the other, and
 * cut in two they are still two requests, sent at once.
 *
 * Not while the crawl has `streams` twice as many as the bucket serves at
 * this round trip (20 at 1 s and 10 requests/s): its rests are paged side by
 * side already, and each cut is one more range that ends in a partial page. A
 * history with 8,000 of its 10,000 sessions in three days, whose rests are
 * priced low until the streams reach them, was cut into 97 streams with 64
 * allowed, 431 pages for 401; with this bound, 79–83 streams and 424–427 pages,
 * as with 24 allowed (docs/benchmarks.md, "Crawl rate").
 */
export function outlasts(rests: Rests, streams = 1): boolean {
  const { restPages, roundTripMs, pagesLeft, spacingMs } = rests;
  if (streams >= Math.ceil((2 * roundTripMs) / spacingMs)) return false;
  const requests = Math.ceil(restPages);
  return requests > 1 && requests * roundTripMs > pagesLeft * spacingMs;
}
