import type { CallOptions } from '../../api/service-client.js';

/**
 * A stream's place in the bucket among its crawl's requests: the crawl's
 * priority, raised by less than one class (no request of another kind is
 * overtaken, or overtakes, that did not before) the more pages the stream is
 * expected to have left.
 *
 * Each stream fetches its pages one after another, a round trip each, and
 * while more requests wait than the bucket serves, some wait. Served in the
 * order they came, every stream went at the same pace: the smaller rests ended
 * early and the larger ones paged on alone, and at 1 s latency each early end
 * left slots that the crawl filled by cutting another stream's rest. Each cut
 * is one more range that ends in a partial page: a 10k backfill took 37
 * streams and 415 pages for 400. Served longest rest first, as a schedule of
 * chains is made shortest, the larger rests keep their pace, the smaller ones
 * take the slots left over, and the streams end together: 20 streams, 409
 * pages (docs/benchmarks.md, "Crawl rate").
 */
export function streamPriority(crawlPriority: number, restPages: number | null): number {
  // Nothing known of its rest yet (its resource has not filled a page): served as if the largest, so that a sparse
  // resource beside a dense one is not left waiting to the end, and learns its density.
  if (restPages === null) return crawlPriority + RAISE;
  if (!(restPages > 0)) return crawlPriority;
  return crawlPriority + RAISE * (restPages / (restPages + 1));
}

/** At most this much of a class, so that any rest stays below the next class. */
const RAISE = 0.5;

/**
 * A stream's call options: the crawl's, its priority read from the stream's
 * expected rest (`restPages`) as each request queues, and `onSend` called as
 * each leaves.
 */
export function streamCall(
  call: CallOptions & { priority: number },
  restPages: () => number | null,
  onSend: () => void,
): CallOptions {
  return { ...call, priority: () => streamPriority(call.priority, restPages()), onSend };
}
