import type { Secret } from '../config/secret.js';
import type { Random } from './prng.js';
import { signDelivery } from './sign-delivery.js';

export interface Delivery {
  readonly webhookUuid: string;
  readonly url: string;
  readonly secret: Secret;
  /** The exact body text; the signature is computed over it. */
  readonly body: string;
}

export interface DeliveryStats {
  /** POSTs sent (first attempts and retries). */
  attempted: number;
  /** Deliveries answered 200. */
  succeeded: number;
  /** Attempts that failed (not 200, connection error, time-out). */
  failed: number;
  /** Deliveries abandoned after the last attempt. */
  gaveUp: number;
  /** Deliveries to hosts other than loopback, never sent: the simulator does not reach the public internet. */
  skipped: number;
  /** Failed attempts by HTTP status, or `error` / `timeout`. */
  failuresByStatus: Record<string, number>;
}

export interface WebhookDeliveriesOptions {
  /** First redelivery delay; it doubles per attempt. @default 200 */
  retryBaseMs: number;
  /** @default 12 */
  maxAttempts: number;
  /** Per attempt. @default 5000 */
  timeoutMs: number;
  /** First attempts wait a random 0..jitterMs, so deliveries overtake each other. @default 0 */
  jitterMs: number;
  random: Random;
}

/** The order held deliveries leave in when released (see `pause`). */
export type ReleaseOrder = 'fifo' | 'reverse' | 'shuffle';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Sends webhook deliveries with retries. Ordering is not guaranteed by the
 * service, and tests need to provoke that: deliveries can be held and released
 * in reverse or shuffled order, or jittered.
 */
export class WebhookDeliveries {
  readonly stats: DeliveryStats = {
    attempted: 0,
    succeeded: 0,
    failed: 0,
    gaveUp: 0,
    skipped: 0,
    failuresByStatus: {},
  };
  readonly #options: WebhookDeliveriesOptions;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #abort = new AbortController();
  readonly #waiters: (() => void)[] = [];
  #held: Delivery[] | null = null;
  #pending = 0;
  #closed = false;

  constructor(options: WebhookDeliveriesOptions) {
    this.#options = options;
  }

  /** Deliveries not yet answered 200 nor given up (held ones included). */
  get pending(): number {
    return this.#pending;
  }

  enqueue(delivery: Delivery): void {
    if (this.#closed) return;
    this.#pending += 1;
    if (this.#held !== null) {
      this.#held.push(delivery);
      return;
    }
    const jitter = this.#options.jitterMs > 0 ? this.#options.random.int(0, this.#options.jitterMs) : 0;
    this.#schedule(delivery, 1, jitter);
  }

  /** Holds new deliveries until `resume`. */
  pause(): void {
    this.#held ??= [];
  }

  resume(order: ReleaseOrder = 'fifo'): void {
    const held = this.#held ?? [];
    this.#held = null;
    if (order === 'reverse') held.reverse();
    if (order === 'shuffle') {
      for (let i = held.length - 1; i > 0; i--) {
        const j = this.#options.random.int(0, i);
        [held[i], held[j]] = [held[j] as Delivery, held[i] as Delivery];
      }
    }
    // Sent one after the other, each after the previous answered, so the release order is the arrival order.
    const sendInOrder = async (): Promise<void> => {
      for (const delivery of held) await this.#attempt(delivery, 1);
    };
    void sendInOrder();
  }

  /** Resolves when every queued delivery got its 200 or was given up. Held deliveries count as queued. */
  settled(): Promise<void> {
    if (this.#pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Stops retries and in-flight attempts; pending deliveries are dropped. */
  close(): void {
    this.#closed = true;
    this.#abort.abort();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#held = null;
    this.#pending = 0;
    this.#wake();
  }

  #schedule(delivery: Delivery, attempt: number, delayMs: number): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      void this.#attempt(delivery, attempt);
    }, delayMs);
    this.#timers.add(timer);
  }

  async #attempt(delivery: Delivery, attempt: number): Promise<void> {
    if (this.#closed) return;
    if (!LOOPBACK.has(new URL(delivery.url).hostname)) {
      this.stats.skipped += 1;
      this.#done();
      return;
    }
    this.stats.attempted += 1;
    let failure: string | null = null;
    try {
      const response = await fetch(delivery.url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Service-Signature': signDelivery(delivery.secret, delivery.body),
        },
        body: delivery.body,
        signal: AbortSignal.any([this.#abort.signal, AbortSignal.timeout(this.#options.timeoutMs)]),
      });
      await response.arrayBuffer();
      if (response.status !== 200) failure = String(response.status);
    } catch (error) {
      failure = error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'error';
    }
    if (this.#closed) return;
    if (failure === null) {
      this.stats.succeeded += 1;
      this.#done();
      return;
    }
    this.stats.failed += 1;
    this.stats.failuresByStatus[failure] = (this.stats.failuresByStatus[failure] ?? 0) + 1;
    if (attempt >= this.#options.maxAttempts) {
      this.stats.gaveUp += 1;
      this.#done();
      return;
    }
    this.#schedule(delivery, attempt + 1, this.#options.retryBaseMs * 2 ** (attempt - 1));
  }

  #done(): void {
    this.#pending -= 1;
    if (this.#pending === 0) this.#wake();
  }

  #wake(): void {
    for (const resolve of this.#waiters.splice(0)) resolve();
  }
}
