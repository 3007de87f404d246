import type { CrawlEvent } from '../crawl/engine/crawl-deps.js';

/** What the operator reads when a crawl's streams, not the service's limit, held its request rate. */
export function streamsCappedLine(event: Extract<CrawlEvent, { type: 'streams-capped' }>): string {
  const roundTrip = ` at ${(event.roundTripMs / 1000).toFixed(1)} s a round trip`;
  return (
    `account ${event.account}: ${event.cap} held the request rate below the limit (${event.streams} streams, ` +
    `all waiting on the service${roundTrip}, while the bucket had tokens to spare): raise ${event.cap}`
  );
}
