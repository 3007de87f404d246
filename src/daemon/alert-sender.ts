import { setTimeout as delay } from 'node:timers/promises';
import { Agent } from '../api/undici-dispatchers.js';
import PQueue from 'p-queue';
import { alertUrlLabel } from '../config/alert-urls.js';
import type { Secret } from '../config/secret.js';
import type { AlertMessage } from './alert-message.js';
import { alertRetryDelayMs } from './alert-retry.js';
import type { ScheduleLogger } from './schedule.js';

export type AlertOutcome = 'sent' | 'failed' | 'dropped';

export interface AlertSenderOptions {
  urls: readonly Secret[];
  /** Retries of one message to one URL. */
  retries: number;
  /** Time-out of one attempt. */
  timeoutMs: number;
  logger: Pick<ScheduleLogger, 'warn' | 'debug'>;
  /** Each message's fate at each URL, for the metrics. */
  onOutcome?: ((kind: string, outcome: AlertOutcome) => void) | undefined;
  /** First retry delay, doubled per attempt. @default 1000 */
  retryBaseMs?: number;
  /** Longest retry delay. @default 60000 */
  retryMaxMs?: number;
  /** Messages waiting per URL at most; beyond it the oldest waiting one is dropped (and counted). @default 100 */
  maxQueued?: number;
}

/**
 * Posts alert messages to every URL, in order per URL (a "failed" never
 * arrives after its "recovered"), with retries. `send` only enqueues: a run
 * never waits for a receiver, and a failed delivery is logged and counted,
 * never thrown. Logs name a URL by its host only: it may carry a secret.
 */
export class AlertSender {
  readonly #o: AlertSenderOptions;
  readonly #queues: Array<{ url: Secret; label: string; queue: PQueue; waiting: Array<{ drop: () => void }> }>;
  readonly #stop = new AbortController();
  /** Connections to the receivers, with the attempt's time-out: to connect, for the headers, between body pieces. */
  readonly #agent: Agent;

  constructor(options: AlertSenderOptions) {
    this.#o = options;
    this.#agent = new Agent({
      connect: { timeout: options.timeoutMs },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    this.#queues = options.urls.map((url) => ({
      url,
      label: alertUrlLabel(url.reveal()),
      queue: new PQueue({ concurrency: 1 }),
      waiting: [],
    }));
  }

  get enabled(): boolean {
    return this.#queues.length > 0;
  }

  send(message: AlertMessage): void {
    for (const target of this.#queues) {
      if (target.waiting.length >= (this.#o.maxQueued ?? 100)) target.waiting.shift()?.drop();
      let dropped = false;
      const entry = { drop: () => (dropped = true) };
      target.waiting.push(entry);
      void target.queue.add(async () => {
        target.waiting.splice(target.waiting.indexOf(entry), 1);
        if (dropped) {
          this.#o.logger.warn(
            { url: target.label, kind: message.kind },
            'alert dropped: too many waiting for a receiver that does not answer',
          );
          this.#o.onOutcome?.(message.kind, 'dropped');
          return;
        }
        this.#o.onOutcome?.(message.kind, await this.#post(target.url, target.label, message));
      });
    }
  }

  async #post(url: Secret, label: string, message: AlertMessage): Promise<AlertOutcome> {
    const { retries, logger } = this.#o;
    const delays = { retries, baseMs: this.#o.retryBaseMs ?? 1_000, maxMs: this.#o.retryMaxMs ?? 60_000 };
    const body = JSON.stringify(message);
    for (let attempt = 1; ; attempt++) {
      const failure = await this.#attempt(url, body);
      if (failure === null) {
        logger.debug({ url: label, kind: message.kind }, 'alert sent');
        return 'sent';
      }
      const waitMs = this.#stop.signal.aborted ? 0 : alertRetryDelayMs({ attempt, ...failure }, delays);
      if (waitMs > 0) {
        try {
          await delay(waitMs, undefined, { signal: this.#stop.signal });
          continue;
        } catch {
          // Closed while waiting: the last failure stands.
        }
      }
      const err = failure.status === undefined ? (failure.code ?? 'error') : `HTTP ${failure.status}`;
      logger.warn({ url: label, kind: message.kind, err }, `alert not delivered to ${label}`);
      return 'failed';
    }
  }

  /**
   * One POST of the message: null when a 2xx answered, else the status or the
   * error's code (never its message, which may name the URL). A redirect is
   * not followed: the message did not arrive.
   */
  async #attempt(url: Secret, body: string): Promise<{ status: number | undefined; code: string | undefined } | null> {
    try {
      const target = new URL(url.reveal());
      const response = await this.#agent.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal: this.#stop.signal,
      });
      await response.body.dump();
      const { statusCode } = response;
      return statusCode >= 200 && statusCode <= 299 ? null : { status: statusCode, code: undefined };
    } catch (error) {
      const { code, name } = error as { code?: unknown; name?: unknown };
      const known = typeof code === 'string' ? code : typeof name === 'string' ? name : undefined;
      return { status: undefined, code: known ?? 'error' };
    }
  }

  /**
   * Waits for the messages in flight, at most `deadlineMs`, then abandons the
   * rest: a stopping daemon sends its last alerts but is not held by a
   * receiver that does not answer.
   */
  async close(deadlineMs = 5_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(this.#queues.map((t) => t.queue.onIdle())),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, deadlineMs))),
    ]);
    clearTimeout(timer);
    this.#stop.abort();
    for (const t of this.#queues) t.queue.clear();
    await this.#agent.destroy().catch(() => undefined);
  }
}
