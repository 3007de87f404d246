import { webhookStreamState, type WebhookStreamState } from '../../crawl/refresh/refresh-settings.js';
import { nextRuns } from '../../daemon/schedule.js';
import { leaseLiveness, type LeaseView } from '../../daemon/lease-liveness.js';
import { DAEMON_LEASE_PREFIX } from '../../store/leases/lease-names.js';
import type { LeaseState, StatusReport } from '../../store/sink.js';
import { DEFAULT_LEASE_TTL_SECONDS } from './lease-options.js';
import { EXIT, type CliCommand } from '../command.js';
import { localHolderIsDead } from '../../app/local-holder.js';
import { openTarget } from '../../app/open-target.js';
import { webhookSettingsOf } from '../../app/refresh-settings-of.js';
import { summarizeLags } from '../../store/runs/lag-summary.js';
import { refreshRows, renderStaleness, spendJson, spendText, stalenessLines } from '../staleness.js';
import { renderTable } from '../text-table.js';

function iso(epoch: number | null): string {
  return epoch === null ? '-' : new Date(epoch * 1000).toISOString();
}

export function renderStatus(report: StatusReport, nowEpoch: number): string {
  const parts: string[] = [];
  parts.push('Tables\n' + renderTable(['table', 'rows'], Object.entries(report.tables)));
  parts.push(
    'Checkpoints\n' +
      renderTable(
        ['account', 'resource', 'api', 'synced to', 'lag (s)'],
        report.highWaterMarks.map((h) => [
          h.account,
          h.resource,
          h.apiVersion,
          iso(h.syncedTo),
          h.syncedTo === null ? '-' : Math.round(nowEpoch - h.syncedTo),
        ]),
      ),
  );
  parts.push(
    'Windows\n' +
      renderTable(
        ['account', 'resource', 'api', 'status', 'windows', 'items fetched last pass'],
        report.windows.map((w) => [w.account, w.resource, w.apiVersion, w.status, w.count, w.items]),
      ),
  );
  parts.push(
    `Sessions not final: ${report.nonFinal.authentications} authentications, ${report.nonFinal.fingerprints} ` +
      `fingerprints\n` +
      `Sessions missing: ${report.missing.authentications} authentications, ${report.missing.fingerprints} ` +
      `fingerprints\n` +
      `Rejected items: ${report.rejected}\n`,
  );
  parts.push(renderStaleness(stalenessLines(report, nowEpoch)));
  parts.push(
    'Last runs\n' +
      renderTable(
        [
          'run',
          'command',
          'started',
          'finished',
          'status',
          'requests',
          'refresh spent/budget',
          'sessions written',
          'error',
        ],
        report.lastRuns.map((r) => {
          const { id, command, startedAt, finishedAt, status, requests, itemsWritten, error } = r;
          return [id, command, startedAt, finishedAt, status, requests, spendText(r.refresh), itemsWritten, error];
        }),
      ),
  );
  return parts.join('\n');
}

/** `status --json`: the report, ages as of `nowEpoch`, the observed lag summarized and the refresh spending. */
export function statusJson(report: StatusReport, nowEpoch: number): Record<string, unknown> {
  const { changeLags, lastRuns, ...rest } = report;
  return {
    ...rest,
    refresh: refreshRows(report, nowEpoch),
    changeLag: summarizeLags(changeLags),
    lastRuns: lastRuns.map((r) => ({ ...r, refresh: spendJson(r.refresh) })),
  };
}

/** What `status` adds to the target's report: the schedule, the leases and the freshness lag. */
export interface ScheduleFacts {
  /**
   * The schedule of this configuration; `nextRun` only while a daemon runs
   * on the target (`daemons` live ones): without one, nothing will run.
   */
  schedule: { expression: string; timezone: string; daemons: number; nextRun: string | null };
  /** Every lease, a dead holder's marked stale. */
  leases: LeaseView[];
  freshness: Array<{ account: string; resource: string; apiVersion: string; lagSeconds: number | null }>;
}

export function scheduleFacts(
  report: StatusReport,
  leases: LeaseState[],
  schedule: { expression: string; timezone: string },
  nowEpoch: number,
  liveness: { ttlSeconds: number; holderIsDead: (holder: string) => boolean },
): ScheduleFacts {
  // The caller does not hold any of them; `held` would only say so.
  const views = leaseLiveness(leases, nowEpoch, liveness.ttlSeconds, liveness.holderIsDead).map((l) => ({
    ...l,
    held: false,
  }));
  const daemons = views.filter((l) => l.name.startsWith(DAEMON_LEASE_PREFIX) && !l.stale).length;
  const [next] = daemons > 0 ? nextRuns(schedule.expression, schedule.timezone, 1) : [];
  return {
    schedule: { ...schedule, daemons, nextRun: next ? next.toISOString() : null },
    leases: views,
    freshness: report.highWaterMarks.map((h) => ({
      account: h.account,
      resource: h.resource,
      apiVersion: h.apiVersion,
      lagSeconds: h.syncedTo === null ? null : Math.round(nowEpoch - h.syncedTo),
    })),
  };
}

export function renderScheduleFacts(facts: ScheduleFacts, nowEpoch: number): string {
  const age = (iso: string) => Math.round(nowEpoch - Date.parse(iso) / 1000);
  return (
    (facts.schedule.daemons > 0
      ? `Schedule: '${facts.schedule.expression}' (${facts.schedule.timezone}), ` +
        `next run ${facts.schedule.nextRun ?? '-'}\n\n`
      : `Schedule: no daemon runs on this target; nothing syncs it until one starts (or a sync runs from cron)\n\n`) +
    'Leases\n' +
    (facts.leases.every((l) => l.stale)
      ? `(none live: nothing is syncing now)\n${facts.leases.length > 0 ? leaseTable(facts.leases, age) : ''}`
      : leaseTable(facts.leases, age))
  );
}

function leaseTable(leases: readonly LeaseView[], age: (iso: string) => number): string {
  return renderTable(
    ['lease', 'holder (host:pid:run)', 'since', 'heartbeat age (s)', 'state'],
    leases.map((l) => {
      const state = l.stale ? 'stale: its holder is gone' : 'live';
      return [l.name, l.holder, l.acquiredAt, age(l.heartbeatAt), state];
    }),
  );
}

/**
 * A run still `running` whose process is known to be gone (it ran on this
 * host and its pid is dead) is shown as abandoned: it died without ending,
 * and nobody has taken its lease over yet to record that.
 */
export function withAbandoned(
  runs: StatusReport['lastRuns'],
  holderIsDead: (holder: string) => boolean,
): StatusReport['lastRuns'] {
  return runs.map((r) =>
    r.status === 'running' && r.holder !== null && holderIsDead(r.holder)
      ? { ...r, status: 'abandoned', error: 'abandoned: its process is gone from this host (found by status)' }
      : r,
  );
}

export const statusCommand: CliCommand = {
  command: 'status',
  describe: 'checkpoints, counts per table, last runs, pending windows, non-final sessions (--json for scripts)',
  uses: ['db', 'config', 'json', 'verbose'],
  examples: [
    ['$0 status', 'tables, checkpoints, windows and the last runs'],
    ['$0 status --json | jq .lastRuns', 'the run history, for scripts'],
  ],
  run: async ({ io, config: load }) => {
    const config = load();
    const sink = await openTarget(config, { existing: true });
    try {
      const stored = await sink.status();
      const report = { ...stored, lastRuns: withAbandoned(stored.lastRuns, localHolderIsDead()) };
      const now = io.clock() / 1000;
      const schedule = { expression: config.daemon.schedule, timezone: config.daemon.timezone };
      const facts = scheduleFacts(report, await sink.leases(), schedule, now, {
        ttlSeconds: DEFAULT_LEASE_TTL_SECONDS,
        holderIsDead: localHolderIsDead(),
      });
      const nonFinal = report.nonFinal.authentications + report.nonFinal.fingerprints;
      const webhooks: WebhookStreamState = webhookStreamState(
        webhookSettingsOf(config),
        report.lastDeliveryAt,
        nonFinal,
        now,
      );
      io.stdout.write(
        config.json
          ? `${JSON.stringify({ ...statusJson(report, now), webhookStream: webhooks, ...facts })}\n`
          : `${renderStatus(report, now)}\nWebhook stream: ${webhooks.detail}\n\n${renderScheduleFacts(facts, now)}`,
      );
    } finally {
      await sink.close();
    }
    return EXIT.ok;
  },
};
