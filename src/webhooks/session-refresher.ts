import type { ServiceClient } from '../api/service-client.js';
import { isRejectedRow, normalizeItem } from '../normalize/normalize-item.js';
import type { NormalizedBatch, Resource } from '../normalize/rows.js';
import { toIsoMicros } from '../normalize/time.js';
import type { Sink } from '../store/sink.js';
import type { ReceiverLogger } from './receiver-logger.js';

export interface SessionRefresherOptions {
  /** Sends the GETs through the account's shared bucket. */
  client: Pick<ServiceClient, 'get' | 'apiVersion'>;
  sink: Pick<Sink, 'mergeBatch' | 'markMissing'>;
  account: string;
  /** Milliseconds since the epoch. @default Date.now */
  clock?: () => number;
  logger?: ReceiverLogger;
  /**
   * Sessions waiting for their GET. Refreshes are an optimization (the
   * delivery itself was applied), so beyond this many new ones are dropped
   * rather than letting a delivery storm queue up the token bucket.
   * @default 1000
   */
  maxPending?: number;
  /**
   * Bucket priority of the GETs: the refresh level of sync (below incremental
   * paging, above a background backfill).
   * @default 2
   */
  priority?: number;
}

/**
 * Targeted GETs for sessions a delivery could not fully describe, run after
 * the delivery was answered, never blocking it. One at a time per session
 * (a session already waiting is not queued twice), one GET in flight.
 */
export class SessionRefresher {
  readonly #options: Required<Omit<SessionRefresherOptions, 'logger'>> & { logger: ReceiverLogger | undefined };
  readonly #queued = new Map<string, Resource>();
  #running: Promise<void> | null = null;
  #closed = false;
  /** GETs sent, for reports. */
  requested = 0;
  dropped = 0;

  constructor(options: SessionRefresherOptions) {
    this.#options = {
      client: options.client,
      sink: options.sink,
      account: options.account,
      clock: options.clock ?? Date.now,
      logger: options.logger,
      maxPending: options.maxPending ?? 1000,
      priority: options.priority ?? 2,
    };
  }

  get pending(): number {
    return this.#queued.size;
  }

  request(resource: Resource, serviceId: string): void {
    if (this.#closed || this.#queued.has(serviceId)) return;
    if (this.#queued.size >= this.#options.maxPending) {
      this.dropped += 1;
      return;
    }
    this.#queued.set(serviceId, resource);
    this.#running ??= this.#drain().finally(() => {
      this.#running = null;
    });
  }

  /** Resolves when every queued GET was made and merged (or failed). */
  async idle(): Promise<void> {
    while (this.#running !== null) await this.#running;
  }

  /** Drops what waits and lets the GET in flight finish. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#queued.clear();
    await this.idle();
  }

  async #drain(): Promise<void> {
    for (;;) {
      const next = this.#queued.entries().next();
      if (next.done === true) return;
      const [serviceId, resource] = next.value;
      try {
        await this.#refresh(resource, serviceId);
      } catch (error) {
        // The delivery was applied; the next sync will catch up what this GET could not.
        this.#options.logger?.warn(
          { resource, serviceId, error: error instanceof Error ? error.message : String(error) },
          'webhook follow-up GET failed',
        );
      } finally {
        this.#queued.delete(serviceId);
      }
    }
  }

  async #refresh(resource: Resource, serviceId: string): Promise<void> {
    const { client, sink, account, clock, priority } = this.#options;
    this.requested += 1;
    const fetched = await client.get(resource, serviceId, { priority });
    const now = toIsoMicros(clock() / 1000);
    if (fetched === null) {
      await sink.markMissing(account, resource, [serviceId], now);
      return;
    }
    const result = normalizeItem(
      resource,
      client.apiVersion,
      fetched.item,
      { account, source: 'get', observedAt: now, responseWarnings: fetched.warnings },
      fetched.itemText,
    );
    const batch: NormalizedBatch = isRejectedRow(result)
      ? { sessions: [], rejected: [result] }
      : { sessions: [result], rejected: [] };
    await sink.mergeBatch(batch);
  }
}
