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
 */
export function outlasts(restPages: number, roundTripMs: number, pagesLeft: number, spacingMs: number): boolean {
  const requests = Math.ceil(restPages);
  return requests > 1 && requests * roundTripMs > pagesLeft * spacingMs;
}
