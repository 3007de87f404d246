import type { RunOutcome } from './run-outcome.js';

/** What an alert says happened; docs/alerts.md lists them. */
export type AlertKind =
  | 'run_failed'
  | 'run_recovered'
  | 'backoff'
  | 'lease_taken_over'
  | 'webhooks_quiet'
  | 'webhooks_healthy'
  | 'verify_drift'
  | 'backfill_finished'
  | 'checks_stale'
  | 'checks_fresh';

export type AlertCommand = 'sync' | 'backfill' | 'verify';

/** The facts of one alert, before it becomes a message. */
export interface AlertSeed {
  kind: AlertKind;
  /** The account, or null for what concerns the daemon or every account (a backoff, a backfill of all). */
  account: string | null;
  command?: AlertCommand | undefined;
  resource?: string | undefined;
  runId?: string | undefined;
  error?: string | undefined;
  /** When the state this alert ends began (a recovery: the first failure). */
  since?: string | undefined;
  /** Failed runs since then (a recovery), or failed ticks in a row (a backoff). */
  failures?: number | undefined;
  /** The process that holds the lease now (a takeover). */
  holder?: string | undefined;
  /** Until when the daemon backs off, or when the last webhook delivery came. */
  until?: string | undefined;
  lastDeliveryAt?: string | null | undefined;
  findings?: number | undefined;
  /** The oldest check of the account's non-final sessions, and the bound it is held to (seconds). */
  ageSeconds?: number | undefined;
  boundSeconds?: number | undefined;
}

interface Failing {
  since: string;
  failures: number;
}

/** What the alerts remember between events: only enough to tell a change from a repeat. */
export interface AlertState {
  /** Per command and account (`sync default`), the failure in progress; absent while it succeeds. */
  readonly failing: Readonly<Record<string, Failing>>;
  readonly backingOff: boolean;
  /** The webhook stream as last seen; unknown before the first look. */
  readonly webhooks: 'unknown' | 'healthy' | 'quiet';
  /** Accounts whose last verify found drift. */
  readonly drifted: readonly string[];
  /** Accounts whose oldest check is past the staleness bound. */
  readonly stale: readonly string[];
}

export const INITIAL_ALERT_STATE: AlertState = Object.freeze({
  failing: {},
  backingOff: false,
  webhooks: 'unknown',
  drifted: [],
  stale: [],
});

export type AlertEvent =
  | { type: 'run'; command: AlertCommand; account: string | null; outcome: RunOutcome; at: string }
  | { type: 'tick'; failedTicksInARow: number; backoffUntil: string | null; error: string | null }
  | { type: 'webhooks'; configured: boolean; healthy: boolean; lastDeliveryAt: string | null }
  | { type: 'verify'; account: string; runId: string | undefined; findings: ReadonlyArray<{ resource: string }> }
  | { type: 'checks'; account: string; ageSeconds: number | null; boundSeconds: number; resource?: string | undefined };

export interface AlertDecision {
  state: AlertState;
  alerts: AlertSeed[];
}

/**
 * Which alerts an event raises: one per change of state, never one per run.
 * A run that fails after one that succeeded (or as the first) raises
 * run_failed, the next that succeeds run_recovered; failures between them
 * are counted, not sent. A run left to the holder of its lease is no change,
 * unless its lease was taken from this process mid-run.
 */
export function decideAlerts(state: AlertState, event: AlertEvent): AlertDecision {
  switch (event.type) {
    case 'run':
      return onRun(state, event);
    case 'tick':
      return onTick(state, event);
    case 'webhooks':
      return onWebhooks(state, event);
    case 'verify':
      return onVerify(state, event);
    case 'checks':
      return onChecks(state, event);
  }
}

function onRun(state: AlertState, event: Extract<AlertEvent, { type: 'run' }>): AlertDecision {
  const { command, account, outcome, at } = event;
  const key = `${command} ${account ?? '*'}`;
  const failing = state.failing[key];
  const others = Object.fromEntries(Object.entries(state.failing).filter(([k]) => k !== key));
  const base = { account, command };
  switch (outcome.status) {
    case 'failed': {
      const next = {
        ...state,
        failing: { ...state.failing, [key]: { since: failing?.since ?? at, failures: (failing?.failures ?? 0) + 1 } },
      };
      if (failing !== undefined) return { state: next, alerts: [] };
      return { state: next, alerts: [{ kind: 'run_failed', ...base, runId: outcome.runId, error: outcome.error }] };
    }
    case 'succeeded': {
      const alerts: AlertSeed[] = [];
      // A finished backfill says so whether or not it had failed before: it ends the failure too.
      if (command === 'backfill')
        alerts.push({
          kind: 'backfill_finished',
          ...base,
          ...(failing ? { since: failing.since, failures: failing.failures } : {}),
        });
      else if (failing !== undefined)
        alerts.push({ kind: 'run_recovered', ...base, since: failing.since, failures: failing.failures });
      return { state: failing === undefined ? state : { ...state, failing: others }, alerts };
    }
    case 'held':
      if (outcome.lost !== true) return { state, alerts: [] };
      return { state, alerts: [{ kind: 'lease_taken_over', ...base, holder: outcome.holder }] };
    case 'interrupted':
      return { state, alerts: [] };
  }
}

function onTick(state: AlertState, event: Extract<AlertEvent, { type: 'tick' }>): AlertDecision {
  if (event.backoffUntil !== null) {
    if (state.backingOff) return { state, alerts: [] };
    const seed: AlertSeed = {
      kind: 'backoff',
      account: null,
      until: event.backoffUntil,
      failures: event.failedTicksInARow,
      error: event.error ?? undefined,
    };
    return { state: { ...state, backingOff: true }, alerts: [seed] };
  }
  // A tick that succeeded ends the backoff; its recovery is each run's run_recovered.
  if (event.failedTicksInARow === 0 && state.backingOff) return { state: { ...state, backingOff: false }, alerts: [] };
  return { state, alerts: [] };
}

function onWebhooks(state: AlertState, event: Extract<AlertEvent, { type: 'webhooks' }>): AlertDecision {
  if (!event.configured) return { state, alerts: [] };
  const now = event.healthy ? 'healthy' : 'quiet';
  const next = { ...state, webhooks: now } as const;
  if (now === state.webhooks) return { state, alerts: [] };
  const seed = { account: null, lastDeliveryAt: event.lastDeliveryAt };
  if (now === 'quiet') {
    // A stream that never delivered is one not set up yet, not one that went quiet: its first delivery is no recovery.
    if (state.webhooks === 'unknown' && event.lastDeliveryAt === null) return { state, alerts: [] };
    return { state: next, alerts: [{ kind: 'webhooks_quiet', ...seed }] };
  }
  // Healthy at the first look is no news; healthy after quiet is a recovery.
  return { state: next, alerts: state.webhooks === 'quiet' ? [{ kind: 'webhooks_healthy', ...seed }] : [] };
}

function onVerify(state: AlertState, event: Extract<AlertEvent, { type: 'verify' }>): AlertDecision {
  const drifted = state.drifted.includes(event.account);
  if (event.findings.length === 0) {
    return {
      state: drifted ? { ...state, drifted: state.drifted.filter((a) => a !== event.account) } : state,
      alerts: [],
    };
  }
  if (drifted) return { state, alerts: [] };
  const resources = [...new Set(event.findings.map((f) => f.resource))].sort();
  const seed: AlertSeed = {
    kind: 'verify_drift',
    account: event.account,
    command: 'verify',
    runId: event.runId,
    findings: event.findings.length,
    resource: resources.join(','),
  };
  return { state: { ...state, drifted: [...state.drifted, event.account] }, alerts: [seed] };
}

/** Past the bound is a change when the last look was within it, and back within it when it was past. */
function onChecks(state: AlertState, event: Extract<AlertEvent, { type: 'checks' }>): AlertDecision {
  const { account, ageSeconds, boundSeconds, resource } = event;
  const was = state.stale.includes(account);
  const is = ageSeconds !== null && ageSeconds > boundSeconds;
  if (was === is) return { state, alerts: [] };
  const seed: AlertSeed = {
    kind: is ? 'checks_stale' : 'checks_fresh',
    account,
    ageSeconds: ageSeconds ?? undefined,
    boundSeconds,
  };
  if (is) seed.resource = resource;
  const stale = is ? [...state.stale, account] : state.stale.filter((a) => a !== account);
  return { state: { ...state, stale }, alerts: [seed] };
}
