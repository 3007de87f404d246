import { DEFAULTS } from '../../config/defaults.js';

/** What a run's refresh of non-final sessions is allowed (see refresh-policy.ts). */
export interface RefreshSettings {
  /** Sessions younger than this (seconds since creation) are hot: checked first, every run. */
  hotSeconds: number;
  /** Longest back-off interval of a session the healthy webhook stream covers, seconds. */
  maxIntervalSeconds: number;
  /** Seconds between two scheduled runs: the first back-off step, and what the budget's share is of. */
  runSeconds: number;
  /** Share of the token a run spends on its account, refresh included: of rate × runSeconds requests. */
  budgetShare: number;
  /** Set: the refresh's own budget per account and run, in requests, whatever the share and the pass spent. */
  maxRequestsPerRun: number | undefined;
  /** Requests per second of an account whose bucket is not known (a library caller's). */
  rate: number;
  /** The receiver: whether one is configured, and how recent its last delivery must be to count as healthy. */
  webhooks: { configured: boolean; healthySeconds: number };
}

/** The gap of the default schedule (every five minutes). */
const DEFAULT_RUN_SECONDS = 300;

/**
 * The requests the refresh of one account and resource may spend in a run:
 * the account's share of what its token allows between two scheduled runs,
 * split evenly over the resources it syncs, less what the resource's pass
 * already spent, so that a run as a whole stays within the share whatever
 * the history's size. A budget set in requests (`maxRequestsPerRun`) is the
 * refresh's own and is only split.
 */
export function refreshBudget(
  settings: Pick<RefreshSettings, 'budgetShare' | 'maxRequestsPerRun' | 'runSeconds'>,
  run: { rate: number; resources: number; passRequests: number },
): number {
  const resources = Math.max(1, run.resources);
  if (settings.maxRequestsPerRun !== undefined) return Math.max(1, Math.floor(settings.maxRequestsPerRun / resources));
  const share = Math.floor((settings.budgetShare * run.rate * settings.runSeconds) / resources);
  return Math.max(0, share - run.passRequests);
}

/** Settings from the config's refresh members, the schedule's gap and the account rate. */
export function refreshSettings(options: {
  refresh: {
    hotSeconds: number;
    maxIntervalSeconds: number;
    budgetShare: number;
    maxRequestsPerRun: number | undefined;
  };
  runSeconds: number;
  rate: number;
  webhooks: { configured: boolean; healthySeconds: number };
}): RefreshSettings {
  return {
    hotSeconds: options.refresh.hotSeconds,
    maxIntervalSeconds: options.refresh.maxIntervalSeconds,
    runSeconds: options.runSeconds,
    budgetShare: options.refresh.budgetShare,
    maxRequestsPerRun: options.refresh.maxRequestsPerRun,
    rate: options.rate,
    webhooks: options.webhooks,
  };
}

/**
 * For a caller that gives none (a library user of runSync): the defaults, a five-minute schedule at 10 requests/s, no
 * receiver.
 */
export const DEFAULT_REFRESH_SETTINGS: RefreshSettings = Object.freeze(
  refreshSettings({
    refresh: DEFAULTS.refresh,
    runSeconds: DEFAULT_RUN_SECONDS,
    rate: DEFAULTS.rate,
    webhooks: { configured: false, healthySeconds: DEFAULTS.webhooks.healthySeconds },
  }),
);

/** Whether the webhook stream is healthy at `now`: a receiver is configured and accepted a delivery recently. */
export function webhooksHealthy(
  settings: RefreshSettings['webhooks'],
  lastDeliveryEpoch: number | null,
  now: number,
): boolean {
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

export function webhookStreamState(
  settings: RefreshSettings['webhooks'],
  lastDeliveryAt: string | null,
  nonFinal: number,
  now: number,
): WebhookStreamState {
  const last = lastDeliveryAt === null ? null : Date.parse(lastDeliveryAt) / 1000;
  const healthy = webhooksHealthy(settings, last, now);
  const base = { configured: settings.configured, healthy, lastDeliveryAt };
  if (!settings.configured)
    return { ...base, detail: 'no webhook secret configured: sync polls non-final sessions by age' };
  if (healthy)
    return {
      ...base,
      detail:
        `healthy: last delivery ${Math.round(now - last!)} s ago; young sessions a delivery updated wait for ` +
        `their back-off`,
    };
  const quiet =
    last === null
      ? 'no delivery received yet'
      : `quiet: last delivery ${Math.round(now - last)} s ago (over ${settings.healthySeconds} s)`;
  return {
    ...base,
    detail: nonFinal > 0 ? `${quiet}; sync polls the ${nonFinal} non-final sessions by age instead` : quiet,
  };
}
