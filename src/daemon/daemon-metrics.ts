import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestEvent } from '../api/service-client.js';
import type { CrawlEvent } from '../crawl/engine/crawl-deps.js';
import type { RefreshOutcome } from '../crawl/refresh/refresh-non-final.js';
import { toIsoMicros } from '../normalize/time.js';
import type { ChangeLag, StatusReport } from '../store/sink.js';
import { declareScrapeGauges, type BucketProbe } from './scrape-gauges.js';
import type { WebhookCounters } from './webhook-counters.js';

const VERIFY_KINDS = ['missing_locally', 'not_returned', 'changed'] as const;

/** Seconds from a change at the service to its row in the target: from a webhook's instant to a day's back-off. */
const LAG_BUCKETS = [1, 5, 15, 60, 300, 900, 1800, 3600, 7200, 21_600, 43_200, 86_400, 172_800];

/** What a sync run's refresh of one account and resource reports for the budget counters. */
export interface RefreshSpending {
  account: string;
  resource: string;
  refresh: Pick<RefreshOutcome, 'budget' | 'requests'>;
}

/**
 * prom-client's default metrics that are gauges named `_total`: `promtool check metrics` refuses them, and each is
 * the sum over the `type` label of its series without the suffix, which stays.
 */
const GAUGES_NAMED_TOTAL = ['handles', 'requests', 'resources'].map((kind) => `nodejs_active_${kind}_total`);

export interface DaemonMetricsOptions {
  /** The bucket of every account and its budget (requests per second), read at each scrape. */
  buckets: () => ReadonlyArray<{ account: string; bucket: BucketProbe; rate: number }>;
  /**
   * Seconds without a webhook delivery after which the stream counts as quiet (`webhooks.healthySeconds`), when a
   * webhook secret is configured; without it the stream's gauges are not exported. @default not exported
   */
  webhookHealthySeconds?: number | undefined;
  /** Milliseconds since the epoch; the freshness lag is measured with it at scrape time. */
  clock: () => number;
  /** Adds Node's process metrics (RSS, heap, event-loop lag). @default true */
  processMetrics?: boolean;
}

/**
 * The daemon's Prometheus metrics, in a registry of its own (never prom-client's
 * global one, so two daemons in one test process do not share counters).
 */
export class DaemonMetrics {
  readonly registry = new Registry();
  readonly webhooks: WebhookCounters;
  readonly #requests: Counter<'account' | 'route' | 'status'>;
  readonly #rateLimited: Counter<'account'>;
  readonly #retries: Counter<'account'>;
  readonly #retryWait: Counter<'account'>;
  readonly #itemsWritten: Counter<'account' | 'resource'>;
  readonly #itemsRejected: Counter<'account' | 'resource'>;
  readonly #itemsStale: Counter<'account' | 'resource'>;
  readonly #runs: Counter<'command' | 'status'>;
  readonly #ticksSkipped: Counter<'reason'>;
  readonly #windows: Gauge<'account' | 'resource' | 'status'>;
  readonly #failingTicks: Gauge;
  readonly #alerts: Counter<'kind' | 'outcome'>;
  #lastDeliveryAt: string | null = null;
  readonly #verifyFindings: Counter<'account' | 'resource' | 'kind'>;
  readonly #refreshRequests: Counter<'account' | 'resource' | 'use'>;
  readonly #changeLag: Histogram<'account' | 'resource'>;
  readonly #marks = new Map<string, { account: string; resource: string; syncedTo: number }>();
  /** Per account and resource, the newest stored_at of change_lags observed into the histogram. */
  readonly #lagSeen = new Map<string, string>();
  readonly #startedAt: string;
  #refresh: StatusReport['refresh'] = [];

  constructor(options: DaemonMetricsOptions) {
    const registers = [this.registry];
    if (options.processMetrics ?? true) {
      collectDefaultMetrics({ register: this.registry, prefix: 'ivsync_' });
      for (const name of GAUGES_NAMED_TOTAL) this.registry.removeSingleMetric(`ivsync_${name}`);
    }
    this.#requests = new Counter({
      name: 'ivsync_requests_total',
      help: 'Requests sent to the service (attempts), by account, route and HTTP status or error code.',
      labelNames: ['account', 'route', 'status'],
      registers,
    });
    this.#rateLimited = new Counter({
      name: 'ivsync_rate_limited_total',
      help: 'Answers 429 (too many requests) from the service.',
      labelNames: ['account'],
      registers,
    });
    this.#retries = new Counter({
      name: 'ivsync_retries_total',
      help: 'Attempts that were retried after a passing fault.',
      labelNames: ['account'],
      registers,
    });
    this.#retryWait = new Counter({
      name: 'ivsync_retry_wait_seconds_total',
      help: 'Seconds waited before retries (Retry-After or backoff).',
      labelNames: ['account'],
      registers,
    });
    this.#itemsWritten = new Counter({
      name: 'ivsync_items_written_total',
      help: 'Sessions inserted or replaced by a newer version.',
      labelNames: ['account', 'resource'],
      registers,
    });
    this.#itemsRejected = new Counter({
      name: 'ivsync_items_rejected_total',
      help: 'Items that could not be normalized (kept in rejected_items).',
      labelNames: ['account', 'resource'],
      registers,
    });
    this.#itemsStale = new Counter({
      name: 'ivsync_items_stale_total',
      help: 'Items not applied because the stored row was newer.',
      labelNames: ['account', 'resource'],
      registers,
    });
    this.#runs = new Counter({
      name: 'ivsync_runs_total',
      help: 'Runs finished, by command and outcome.',
      labelNames: ['command', 'status'],
      registers,
    });
    this.#ticksSkipped = new Counter({
      name: 'ivsync_ticks_skipped_total',
      help: 'Scheduled ticks not run: overlap (the previous still ran), backoff (crash loop), stopping.',
      labelNames: ['reason'],
      registers,
    });
    this.#windows = new Gauge({
      name: 'ivsync_windows',
      help: 'Windows of the history by status (pending, running, failed, done, sealed, ...), as of the last run.',
      labelNames: ['account', 'resource', 'status'],
      registers,
    });
    this.#alerts = new Counter({
      name: 'ivsync_alerts_total',
      help:
        'Alert messages by kind and outcome at each URL: sent, failed (after its retries), ' +
        'dropped (too many waiting).',
      labelNames: ['kind', 'outcome'],
      registers,
    });
    this.#failingTicks = new Gauge({
      name: 'ivsync_failed_ticks_in_a_row',
      help: 'Scheduled ticks in a row that had a failed run (0 after a tick that succeeded); 3 or more back off.',
      registers,
    });
    this.#verifyFindings = new Counter({
      name: 'ivsync_verify_findings_total',
      help:
        "Drift the daemon's verify runs found between the service and the target, by kind: missing_locally, " +
        'not_returned, changed (one per differing column).',
      labelNames: ['account', 'resource', 'kind'],
      registers,
    });
    this.#refreshRequests = new Counter({
      name: 'ivsync_refresh_requests_total',
      help:
        'Requests of the refresh of non-final sessions per sync run, summed: use="budget" what it was allowed, ' +
        '"spent" the requests it sent, "saved" what it left of the budget.',
      labelNames: ['account', 'resource', 'use'],
      registers,
    });
    this.#changeLag = new Histogram({
      name: 'ivsync_change_lag_seconds',
      help:
        "Observed lag of each stored change the service dated (v2 last_updated_at, or a webhook delivery's arrival): " +
        'when ivsync stored it minus when the service made it (change_lags).',
      labelNames: ['account', 'resource'],
      buckets: LAG_BUCKETS,
      registers,
    });
    this.#startedAt = toIsoMicros(options.clock() / 1000);
    const deliveries = new Counter({
      name: 'ivsync_webhook_deliveries_total',
      help: 'Webhook deliveries by outcome: accepted, refused (with reason).',
      labelNames: ['outcome', 'reason'],
      registers,
    });
    const staleItems = new Counter({
      name: 'ivsync_webhook_items_stale_total',
      help: 'Webhook items not applied because the stored row was newer.',
      registers,
    });
    this.webhooks = {
      accepted: () => deliveries.inc({ outcome: 'accepted', reason: '' }),
      refused: (reason) => deliveries.inc({ outcome: 'refused', reason }),
      stale: (items) => {
        if (items > 0) staleItems.inc(items);
      },
    };
    declareScrapeGauges(registers, {
      clock: options.clock,
      buckets: options.buckets,
      marks: () => this.#marks.values(),
      tiers: () => this.#refresh,
      lastDeliveryAt: () => this.#lastDeliveryAt,
      webhookHealthySeconds: options.webhookHealthySeconds,
    });
  }

  /** Starts the per-account counters at zero, so a series exists before its first event. */
  declareAccounts(accounts: readonly string[]): void {
    for (const account of accounts) {
      this.#rateLimited.inc({ account }, 0);
      this.#retries.inc({ account }, 0);
      this.#retryWait.inc({ account }, 0);
    }
  }

  readonly onRequest = (account: string, event: RequestEvent): void => {
    this.#requests.inc({
      account,
      route: `${event.method} ${event.route}`,
      status: event.status === null ? (event.error ?? 'error') : String(event.status),
    });
    if (event.status === 429) this.#rateLimited.inc({ account });
    if (event.retryWaitMs > 0) {
      this.#retries.inc({ account });
      this.#retryWait.inc({ account }, event.retryWaitMs / 1000);
    }
  };

  readonly onCrawlEvent = (event: CrawlEvent): void => {
    if (event.type !== 'page') return;
    const labels = { account: event.account, resource: event.resource };
    this.#itemsWritten.inc(labels, event.written);
    this.#itemsRejected.inc(labels, event.rejected);
    this.#itemsStale.inc(labels, event.stale);
  };

  /** Starts the verify series at zero, so an alert on their increase has a series before the first finding. */
  declareVerify(accounts: readonly string[], resources: readonly string[]): void {
    for (const account of accounts)
      for (const resource of resources)
        for (const kind of VERIFY_KINDS) this.#verifyFindings.inc({ account, resource, kind }, 0);
  }

  /** The findings of one verify run (the run itself is counted in ivsync_runs_total{command="verify"}). */
  verifyFinished(findings: ReadonlyArray<{ account: string; resource: string; kind: string }>): void {
    for (const f of findings) this.#verifyFindings.inc({ account: f.account, resource: f.resource, kind: f.kind });
  }

  /** A sync run's refresh budgets and spending, per account and resource. */
  refreshFinished(outcomes: readonly RefreshSpending[]): void {
    for (const { account, resource, refresh } of outcomes) {
      this.#refreshRequests.inc({ account, resource, use: 'budget' }, refresh.budget);
      this.#refreshRequests.inc({ account, resource, use: 'spent' }, refresh.requests);
      this.#refreshRequests.inc({ account, resource, use: 'saved' }, Math.max(0, refresh.budget - refresh.requests));
    }
  }

  runFinished(command: string, status: string): void {
    this.#runs.inc({ command, status });
  }

  tickSkipped(reason: 'overlap' | 'backoff' | 'stopping'): void {
    this.#ticksSkipped.inc({ reason });
  }

  tickRecorded(tick: { failedTicksInARow: number }): void {
    this.#failingTicks.set(tick.failedTicksInARow);
  }

  /** One alert message's fate at one URL. */
  alertSent(kind: string, outcome: 'sent' | 'failed' | 'dropped'): void {
    this.#alerts.inc({ kind, outcome });
  }

  /** Takes windows and high-water marks from a status report (after each tick). */
  observe(
    report: Pick<StatusReport, 'windows' | 'highWaterMarks'> &
      Partial<Pick<StatusReport, 'refresh' | 'changeLags' | 'lastDeliveryAt'>>,
  ): void {
    this.#refresh = report.refresh ?? [];
    this.#lastDeliveryAt = report.lastDeliveryAt ?? this.#lastDeliveryAt;
    this.#observeLags(report.changeLags ?? []);
    this.#windows.reset();
    // Both interfaces of an account keep windows: the gauge sums them.
    for (const w of report.windows) {
      this.#windows.inc({ account: w.account, resource: w.resource, status: w.status }, w.count);
    }
    for (const h of report.highWaterMarks) {
      if (h.syncedTo === null) continue;
      const key = `${h.account}\u0000${h.resource}`;
      const known = this.#marks.get(key);
      // Two interfaces of one account: the freshest mark is the account's freshness.
      if (!known || known.syncedTo < h.syncedTo)
        this.#marks.set(key, { account: h.account, resource: h.resource, syncedTo: h.syncedTo });
    }
  }

  /**
   * Puts the changes stored since the last observation (any process's: the
   * table is read, not this process's writes) into the lag histogram; those
   * stored before the daemon started are history, not this process's count.
   * A change committed late with an older stored_at than one already seen is
   * missed: the histogram samples, change_lags keeps every one.
   */
  #observeLags(lags: readonly ChangeLag[]): void {
    const newest = new Map<string, string>();
    for (const lag of lags) {
      const key = `${lag.account}\u0000${lag.resource}`;
      if (lag.storedAt <= (this.#lagSeen.get(key) ?? this.#startedAt)) continue;
      this.#changeLag.observe({ account: lag.account, resource: lag.resource }, lag.lagSeconds);
      if (lag.storedAt > (newest.get(key) ?? '')) newest.set(key, lag.storedAt);
    }
    for (const [key, storedAt] of newest) this.#lagSeen.set(key, storedAt);
  }

  /** The largest freshness lag now, in seconds (the soak run reports it). */
  largestLagSeconds(nowMs: number): number {
    let lag = 0;
    for (const m of this.#marks.values()) lag = Math.max(lag, nowMs / 1000 - m.syncedTo);
    return lag;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /**
   * The exposition without the blank lines prom-client puts between
   * families (promtool and strict parsers refuse them).
   */
  async text(): Promise<string> {
    const text = await this.registry.metrics();
    return text.replace(/\n{2,}/g, '\n');
  }
}
