import type { AlertKind, AlertSeed } from './alert-decision.js';

/**
 * The JSON body POSTed to every alert URL (docs/alerts.md). `text` is one
 * line a Slack or Mattermost incoming webhook shows as it is; the rest is for
 * programs. Absent facts are null, so every message has every field.
 */
export interface AlertMessage {
  text: string;
  kind: AlertKind;
  /** `problem` for what needs a person, `resolved` for its end, `info` for news. */
  severity: 'problem' | 'resolved' | 'info';
  account: string | null;
  command: string | null;
  resource: string | null;
  run_id: string | null;
  error: string | null;
  /** When the daemon saw the change (ISO 8601, UTC). */
  at: string;
  /** When the state this message ends began (a recovery), or null. */
  since: string | null;
  /** Failed runs (a recovery) or failed ticks in a row (a backoff). */
  failures: number | null;
  /** The process that took the lease over. */
  holder: string | null;
  /** Until when the daemon backs off. */
  until: string | null;
  last_delivery_at: string | null;
  findings: number | null;
  /** The oldest check of the account's non-final sessions, in seconds (checks_stale, checks_fresh). */
  check_age_seconds: number | null;
  /** The staleness bound it is held to, in seconds. */
  bound_seconds: number | null;
  /** The daemon that sent it (host:pid:random). */
  daemon: string;
  /** The daemon's status page, when it serves one. */
  link: string | null;
}

const SEVERITY: Readonly<Record<AlertKind, AlertMessage['severity']>> = {
  run_failed: 'problem',
  run_recovered: 'resolved',
  backoff: 'problem',
  lease_taken_over: 'info',
  webhooks_quiet: 'problem',
  webhooks_healthy: 'resolved',
  verify_drift: 'problem',
  backfill_finished: 'info',
  checks_stale: 'problem',
  checks_fresh: 'resolved',
};

/** The longest error a text line carries; the `error` field has it whole. */
const TEXT_ERROR_CHARS = 300;

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > TEXT_ERROR_CHARS ? `${line.slice(0, TEXT_ERROR_CHARS - 1)}…` : line;
}

function textOf(seed: AlertSeed): string {
  const who = seed.account === null ? 'ivsync' : `ivsync [${seed.account}]`;
  const command = seed.command ?? 'sync';
  const run = seed.runId === undefined ? '' : ` (run ${seed.runId})`;
  switch (seed.kind) {
    case 'run_failed':
      return `${who}: ${command} failed${run}: ${clip(seed.error ?? 'unknown error')}`;
    case 'run_recovered':
      return `${who}: ${command} recovered after ${seed.failures ?? 1} failed run(s) since ${seed.since ?? '?'}`;
    case 'backoff':
      return (
        `${who}: ${seed.failures ?? 0} failed ticks in a row; backing off until ${seed.until ?? '?'}: ` +
        clip(seed.error ?? 'unknown error')
      );
    case 'lease_taken_over':
      return (
        `${who}: ${command} stopped: ${seed.holder ?? 'another process'} took its lease over ` +
        '(this daemon missed its heartbeats)'
      );
    case 'webhooks_quiet':
      return (
        `${who}: the webhook stream went quiet (last delivery ${seed.lastDeliveryAt ?? 'never'}); ` +
        'sync polls non-final sessions instead'
      );
    case 'webhooks_healthy':
      return `${who}: the webhook stream is delivering again (last delivery ${seed.lastDeliveryAt ?? '?'})`;
    case 'verify_drift':
      return (
        `${who}: verify found ${seed.findings ?? 0} finding(s) in ${seed.resource ?? '?'}${run}; ` +
        'ivsync verify --repair fixes them'
      );
    case 'backfill_finished':
      return `${who}: the background backfill finished`;
    case 'checks_stale':
      return (
        `${who}: refresh checks deferred: the oldest non-final session${seed.resource ? ` (${seed.resource})` : ''} ` +
        `was last checked ${seed.ageSeconds ?? '?'} s ago, past the ${seed.boundSeconds ?? '?'} s bound; ` +
        'raise the refresh budget or the rate'
      );
    case 'checks_fresh':
      return seed.ageSeconds === undefined
        ? `${who}: refresh checks caught up: no non-final session is left`
        : `${who}: refresh checks caught up: the oldest was checked ${seed.ageSeconds} s ago, ` +
            `within ${seed.boundSeconds ?? '?'} s`;
  }
}

/** The message of one alert. */
export function alertMessage(
  seed: AlertSeed,
  facts: { at: string; daemon: string; link?: string | undefined },
): AlertMessage {
  return {
    text: textOf(seed),
    kind: seed.kind,
    severity: SEVERITY[seed.kind],
    account: seed.account,
    command: seed.command ?? null,
    resource: seed.resource ?? null,
    run_id: seed.runId ?? null,
    error: seed.error ?? null,
    at: facts.at,
    since: seed.since ?? null,
    failures: seed.failures ?? null,
    holder: seed.holder ?? null,
    until: seed.until ?? null,
    last_delivery_at: seed.lastDeliveryAt ?? null,
    findings: seed.findings ?? null,
    check_age_seconds: seed.ageSeconds ?? null,
    bound_seconds: seed.boundSeconds ?? null,
    daemon: facts.daemon,
    link: facts.link ?? null,
  };
}
