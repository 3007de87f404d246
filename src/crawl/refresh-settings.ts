import { DEFAULTS } from '../config/defaults.js';

/** What a run's refresh of non-final sessions is allowed (see refresh-policy.ts). */
export interface RefreshSettings {
  /** Sessions younger than this (seconds since creation) are re-checked every run. */
  hotSeconds: number;
  /** Longest back-off interval, seconds. */
  maxIntervalSeconds: number;
  /** Seconds between two scheduled runs: the first back-off step. */
  runSeconds: number;
  /** Most requests per account per run (its resources share it evenly). */
  maxRequests: number;
  /** The receiver: whether one is configured, and how recent its last delivery must be to count as healthy. */
  webhooks: { configured: boolean; healthySeconds: number };
}

/** The gap of the default schedule (every five minutes). */
const DEFAULT_RUN_SECONDS = 300;

/**
 * The refresh budget when none is set: a fifth of what the bucket allows
 * between two scheduled runs, so the refresh never crowds out new pages and
 * an idle run fits its schedule whatever the number of non-final sessions.
 */
export function defaultRefreshBudget(rate: number, runSeconds: number): number {
  return Math.max(1, Math.floor((rate * runSeconds) / 5));
}

/** Settings from the config's refresh members, the schedule's gap and the account rate. */
export function refreshSettings(options: {
  refresh: { hotSeconds: number; maxIntervalSeconds: number; maxRequestsPerRun: number | undefined };
  runSeconds: number;
  rate: number;
  webhooks: { configured: boolean; healthySeconds: number };
}): RefreshSettings {
  return {
    hotSeconds: options.refresh.hotSeconds,
    maxIntervalSeconds: options.refresh.maxIntervalSeconds,
    runSeconds: options.runSeconds,
    maxRequests: options.refresh.maxRequestsPerRun ?? defaultRefreshBudget(options.rate, options.runSeconds),
    webhooks: options.webhooks,
  };
}

/** For a caller that gives none (a library user of runSync): the defaults, a five-minute schedule at 10 requests/s, no receiver. */
export const DEFAULT_REFRESH_SETTINGS: RefreshSettings = Object.freeze(
  refreshSettings({
    refresh: DEFAULTS.refresh,
    runSeconds: DEFAULT_RUN_SECONDS,
    rate: DEFAULTS.rate,
    webhooks: { configured: false, healthySeconds: DEFAULTS.webhooks.healthySeconds },
  }),
);

/** Whether the webhook stream is healthy at `now`: a receiver is configured and accepted a delivery recently. */
export function webhooksHealthy(settings: RefreshSettings['webhooks'], lastDeliveryEpoch: number | null, now: number): boolean {
  return settings.configured && lastDeliveryEpoch !== null && now - lastDeliveryEpoch <= settings.healthySeconds;
}

/** What status and /healthz say about the webhook stream and the refresh. */
export interface WebhookStreamState {
  configured: boolean;
  healthy: boolean;
  lastDeliveryAt: string | null;
  /** One line: why delivered sessions wait, or why sync polls them. */
  detail: string;
}

export function webhookStreamState(settings: RefreshSettings['webhooks'], lastDeliveryAt: string | null, nonFinal: number, now: number): WebhookStreamState {
  const last = lastDeliveryAt === null ? null : Date.parse(lastDeliveryAt) / 1000;
  const healthy = webhooksHealthy(settings, last, now);
  const base = { configured: settings.configured, healthy, lastDeliveryAt };
  if (!settings.configured) return { ...base, detail: 'no webhook secret configured: sync polls non-final sessions by age' };
  if (healthy) return { ...base, detail: `healthy: last delivery ${Math.round(now - last!)} s ago; young sessions a delivery updated wait for their back-off` };
  const quiet = last === null ? 'no delivery received yet' : `quiet: last delivery ${Math.round(now - last)} s ago (over ${settings.healthySeconds} s)`;
  return { ...base, detail: nonFinal > 0 ? `${quiet}; sync polls the ${nonFinal} non-final sessions by age instead` : quiet };
}
