import type { Config } from '../config/config.js';
import { CommitQueue } from '../crawl/engine/commit-queue.js';
import type { CrawlEvent } from '../crawl/engine/crawl-deps.js';
import { WindowClaims } from '../crawl/engine/window-claims.js';
import { refreshSettings, type RefreshSettings } from '../crawl/refresh/refresh-settings.js';
import type { RunDeps } from '../crawl/runs/run-deps.js';
import type { RunLeases } from '../crawl/runs/run-recorder.js';
import { shortestGapMs } from '../daemon/schedule.js';
import { normalizeItems } from '../normalize/normalize-item.js';
import type { Sink } from '../store/sink.js';
import type { BoundAccount } from './bind-accounts.js';

/**
 * The refresh policy's settings: the config's members, the schedule's gap as
 * one run (plain `sync` from cron is expected on the same schedule), and the
 * slowest account's rate for the default budget.
 */
export function refreshSettingsOf(config: Config): RefreshSettings {
  const webhooks = config.webhooks;
  const configured = webhooks.defaultSecret !== undefined || Object.keys(webhooks.secrets).length > 0;
  return refreshSettings({
    refresh: config.refresh,
    runSeconds: shortestGapMs(config.daemon.schedule, config.daemon.timezone) / 1000,
    rate: Math.min(...config.accounts.map((a) => a.rate)),
    webhooks: { configured, healthySeconds: webhooks.healthySeconds },
  });
}

/** RunDeps over what the process holds: its target, its bound accounts, its leases. */
export function runDeps(
  config: Config,
  io: { clock: () => number; signal: AbortSignal },
  parts: {
    sink: Sink;
    bound: readonly BoundAccount[];
    leases: RunLeases;
    onEvent?: ((event: CrawlEvent) => void) | undefined;
  },
): RunDeps {
  return {
    sink: parts.sink,
    accounts: parts.bound.map((b) => ({ name: b.config.name, client: b.client, bucket: b.limiter })),
    crawl: config.crawl,
    refresh: refreshSettingsOf(config),
    normalize: normalizeItems,
    clock: io.clock,
    signal: io.signal,
    leases: parts.leases,
    commits: new CommitQueue(parts.sink),
    claims: new WindowClaims(),
    onEvent: parts.onEvent,
  };
}
