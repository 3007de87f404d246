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
 * the resource's part (`part`, see refreshParts) of what the account's
 * passes (`passRequests`, all its resources') left of its share of what its
 * token allows between two scheduled runs, so that a run as a whole stays
 * within the share whatever the history's size, and a resource whose pass
 * cost more does not get fewer checks for it. A budget set in requests
 * (`maxRequestsPerRun`) is the refresh's own and is only split.
 */
export function refreshBudget(
  settings: Pick<RefreshSettings, 'budgetShare' | 'maxRequestsPerRun' | 'runSeconds'>,
  run: { rate: number; part: RefreshPart; passRequests: number },
): number {
  if (settings.maxRequestsPerRun !== undefined) return Math.max(1, partOf(settings.maxRequestsPerRun, run.part));
  const share = settings.budgetShare * run.rate * settings.runSeconds;
  return partOf(Math.max(0, share - run.passRequests), run.part);
}

/**
 * A resource's part of the account's budget: where it starts and ends in the
 * budget, as fractions (refreshParts), so that the whole requests of the
 * parts add up to the budget's.
 */
export interface RefreshPart {
  from: number;
  to: number;
}

/** The whole requests of `part` of `total`: the parts of one budget add up to its whole requests. */
function partOf(total: number, part: RefreshPart): number {
  const at = (f: number) => Math.floor(total * Math.min(1, Math.max(0, f)) + 1e-9);
  return at(part.to) - at(part.from);
}

/** The whole budget, for a refresh of one resource alone. */
export const WHOLE: RefreshPart = Object.freeze({ from: 0, to: 1 });

/**
 * How an account's refresh budget (what its passes left) is split over the
 * resources a run syncs: in proportion to their non-final sessions (one more each, so that none is
 * left out), so that each resource's sessions come round as often. An even
 * split left a million sessions' authentications (seven in ten) a day behind
 * while their fingerprints were checked three times over.
 */
export function refreshParts(nonFinal: readonly number[]): RefreshPart[] {
  const weights = nonFinal.map((n) => Math.max(0, n) + 1);
  const total = weights.reduce((a, b) => a + b, 0);
  let from = 0;
  return weights.map((w, i) => {
    const to = i === weights.length - 1 ? 1 : from + w / total;
    const part = { from, to };
    from = to;
    return part;
  });
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
