import { Gauge, type Registry } from 'prom-client';
import type { StatusReport } from '../store/sink.js';

/** A token bucket as the metrics read it (RateLimiter has this shape). */
export interface BucketProbe {
  readonly pending: number;
  readonly inFlight: number;
}

/** What the gauges read at each scrape: the clock, the live buckets, and what the last run's status left. */
export interface ScrapeSources {
  clock: () => number;
  buckets: () => ReadonlyArray<{ account: string; bucket: BucketProbe; rate: number }>;
  /** The freshest high-water mark of each account and resource. */
  marks: () => Iterable<{ account: string; resource: string; syncedTo: number }>;
  tiers: () => StatusReport['refresh'];
  lastDeliveryAt: () => string | null;
  /** Seconds without a delivery after which the webhook stream is quiet; absent: its gauges are not exported. */
  webhookHealthySeconds: number | undefined;
}

/**
 * The gauges computed when Prometheus scrapes rather than set as events happen: lags and ages are measured against
 * the clock of the scrape, and the buckets are read live.
 */
export function declareScrapeGauges(registers: Registry[], sources: ScrapeSources): void {
  new Gauge({
    name: 'ivsync_freshness_lag_seconds',
    help: 'Now minus the high-water mark of each account and resource (as of the last run).',
    labelNames: ['account', 'resource'],
    registers,
    collect() {
      const now = sources.clock() / 1000;
      for (const m of sources.marks())
        this.set({ account: m.account, resource: m.resource }, Math.max(0, now - m.syncedTo));
    },
  });
  new Gauge({
    name: 'ivsync_refresh_sessions',
    help:
      'Non-final sessions by refresh tier as of their last check: hot (every run), backoff (doubling ' +
      'back-off), unchecked (never re-checked yet); as of the last run.',
    labelNames: ['account', 'resource', 'tier'],
    registers,
    collect() {
      this.reset();
      for (const t of sources.tiers()) this.set({ account: t.account, resource: t.resource, tier: t.tier }, t.sessions);
    },
  });
  new Gauge({
    name: 'ivsync_refresh_oldest_check_age_seconds',
    help: 'Now minus the oldest refresh check of the non-final sessions of each tier (hot, backoff).',
    labelNames: ['account', 'resource', 'tier'],
    registers,
    collect() {
      this.reset();
      const now = sources.clock() / 1000;
      for (const t of sources.tiers())
        if (t.oldestCheckAt !== null)
          this.set(
            { account: t.account, resource: t.resource, tier: t.tier },
            Math.max(0, now - Date.parse(t.oldestCheckAt) / 1000),
          );
    },
  });
  new Gauge({
    name: 'ivsync_refresh_check_age_seconds',
    help:
      'Age of the last refresh check of the non-final sessions of each tier (hot, backoff, unchecked: never ' +
      're-checked, counted from when it was stored): percentile 50 and 95 (nearest rank) and 100 (the oldest). ' +
      'A gauge, not a summary: its label is not named quantile, which Prometheus keeps for summaries.',
    labelNames: ['account', 'resource', 'tier', 'percentile'],
    registers,
    collect() {
      this.reset();
      const now = sources.clock() / 1000;
      const age = (iso: string) => Math.max(0, now - Date.parse(iso) / 1000);
      for (const t of sources.tiers()) {
        const labels = { account: t.account, resource: t.resource, tier: t.tier };
        const figures = [
          ['50', t.p50CheckAt],
          ['95', t.p95CheckAt],
          ['100', t.oldestCheckAt],
        ] as const;
        for (const [percentile, at] of figures) if (at !== null) this.set({ ...labels, percentile }, age(at));
      }
    },
  });
  new Gauge({
    name: 'ivsync_bucket_waiting_requests',
    help: 'Requests waiting for a token in the account bucket.',
    labelNames: ['account'],
    registers,
    collect() {
      for (const b of sources.buckets()) this.set({ account: b.account }, b.bucket.pending);
    },
  });
  new Gauge({
    name: 'ivsync_bucket_in_flight_requests',
    help: 'Requests of the account bucket that hold a token and have not settled.',
    labelNames: ['account'],
    registers,
    collect() {
      for (const b of sources.buckets()) this.set({ account: b.account }, b.bucket.inFlight);
    },
  });
  new Gauge({
    name: 'ivsync_budget_requests_per_second',
    help: "The account token's request budget (--rate): the rate of ivsync_requests_total over it is the saturation.",
    labelNames: ['account'],
    registers,
    collect() {
      for (const b of sources.buckets()) this.set({ account: b.account }, b.rate);
    },
  });
  const healthySeconds = sources.webhookHealthySeconds;
  if (healthySeconds !== undefined) declareWebhookStream(healthySeconds, registers, sources);
}

/** The webhook stream's last delivery and whether it is quiet, as the refresh reads it (webhooks.healthySeconds). */
function declareWebhookStream(healthySeconds: number, registers: Registry[], sources: ScrapeSources): void {
  const last = () => {
    const at = sources.lastDeliveryAt();
    return at === null ? null : Date.parse(at) / 1000;
  };
  new Gauge({
    name: 'ivsync_webhook_last_delivery_timestamp_seconds',
    help:
      'When the newest webhook delivery in the target arrived (epoch seconds), as of the last run; ' +
      'absent before one.',
    registers,
    collect() {
      this.reset();
      const at = last();
      if (at !== null) this.set(at);
    },
  });
  new Gauge({
    name: 'ivsync_webhook_stream_healthy',
    help: `1 while a webhook delivery arrived within webhooks.healthySeconds (${healthySeconds} s), else 0 (quiet).`,
    registers,
    collect() {
      const at = last();
      this.set(at !== null && sources.clock() / 1000 - at <= healthySeconds ? 1 : 0);
    },
  });
}
