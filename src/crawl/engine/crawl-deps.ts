import type { CallOptions } from '../../api/service-client.js';
import type { Cursor } from '../../api/cursor.js';
import type { ApiVersion, NormalizedBatch, ObservationContext, Resource } from '../../normalize/rows.js';

/** The part of the API client the crawl uses. */
export interface CrawlClient {
  readonly apiVersion: ApiVersion;
  pages(
    resource: Resource,
    request: { range?: { start: number | null; end: number | null }; cursor?: Cursor | null; limit?: number },
    options?: CallOptions,
  ): AsyncIterable<{ items: unknown[]; nextCursor: Cursor | null; warnings: unknown[]; itemTexts?: readonly string[] }>;
  get(resource: Resource, serviceId: string, options?: CallOptions): Promise<{ item: unknown; warnings: unknown[]; itemText?: string } | null>;
}

/** The normalizer, as the crawl calls it; `texts`, when given, are the items' JSON texts as received. */
export type Normalize = (
  resource: Resource,
  apiVersion: ApiVersion,
  items: readonly unknown[],
  ctx: ObservationContext,
  texts?: readonly string[],
) => NormalizedBatch;

/** What the crawl reports as it goes (progress bars, logs, metrics). */
export type CrawlEvent =
  | { type: 'page'; account: string; resource: Resource; items: number; rejected: number; written: number; stale: number; covered: number }
  | { type: 'pass-done'; account: string; resource: Resource; windowStart: number; windowEnd: number; missing: number }
  | { type: 'window-split'; account: string; resource: Resource; windowStart: number; parts: number }
  | { type: 'window-failed'; account: string; resource: Resource; windowStart: number; error: string }
  | { type: 'refresh'; account: string; resource: Resource; budget: number; repaged: number; fetched: number; cost: number; naiveCost: number; due: number; deferred: number }
  | { type: 'backfill-plan'; plans: readonly BackfillPlanSummary[] };

/** What a backfill will page, per account and resource, before it starts. */
export interface BackfillPlanSummary {
  account: string;
  resource: Resource;
  windows: number;
  todo: number;
  resumed: number;
  /** Epoch seconds still to cover, for an ETA. */
  seconds: number;
  /** Epoch seconds of every window of the interval, done or not: a resumed run's progress starts at the part already done. */
  totalSeconds: number;
}
