import type { Config } from '../config/config.js';
import { refreshSettings, type RefreshSettings } from '../crawl/refresh/refresh-settings.js';
import { shortestGapMs } from '../daemon/schedule.js';

/**
 * The refresh policy's settings: the config's members, the schedule's gap as
 * one run (plain `sync` from cron is expected on the same schedule), and the
 * slowest account's rate for the default budget.
 */
export function refreshSettingsOf(config: Config): RefreshSettings {
  return refreshSettings({
    refresh: config.refresh,
    runSeconds: shortestGapMs(config.daemon.schedule, config.daemon.timezone) / 1000,
    rate: Math.min(...config.accounts.map((a) => a.rate)),
    webhooks: webhookSettingsOf(config),
  });
}

/**
 * The webhook part of the refresh settings alone: what `status` says of the stream needs no schedule, whose
 * gap takes node-cron to read.
 */
export function webhookSettingsOf(config: Config): RefreshSettings['webhooks'] {
  const webhooks = config.webhooks;
  const configured = webhooks.defaultSecret !== undefined || Object.keys(webhooks.secrets).length > 0;
  return { configured, healthySeconds: webhooks.healthySeconds };
}
