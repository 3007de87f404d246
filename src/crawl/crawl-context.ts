import type { CrawlConfig } from '../config/config.js';
import type { Sink } from '../store/sink.js';
import type { CommitQueue } from './commit-queue.js';
import type { CrawlClient, CrawlEvent, Normalize } from './crawl-deps.js';
import type { BucketRoom } from './room-watch.js';

/** One account as the crawl sees it: a name and a client bound to its token and bucket. */
export interface CrawlAccount {
  name: string;
  client: CrawlClient;
  /** The token's bucket, so that a crawl adds request streams only while it has room. */
  bucket?: BucketRoom;
}

/** Everything a backfill or a sync needs; built by the CLI (the composition root). */
export interface CrawlContext {
  sink: Sink;
  accounts: readonly CrawlAccount[];
  crawl: CrawlConfig;
  normalize: Normalize;
  /** Milliseconds since the epoch. */
  clock: () => number;
  signal: AbortSignal;
  onEvent?: (event: CrawlEvent) => void;
  commits: CommitQueue;
}
