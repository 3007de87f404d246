import { toIsoMicros } from '../normalize/time.js';
import { summarizeLags, type LagSummary } from '../store/runs/lag-summary.js';
import { readRow } from '../store/row-reader.js';
import { table } from '../schema/schema.js';
import type { StatusOptions, StatusReport } from '../store/sink.js';
import { windowState, type WindowState } from './window-state.js';

/** What the snapshot reads through: read-only SQL over the target, and the target's own status report. */
export interface SnapshotSource {
  query(sql: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  status(options?: StatusOptions): Promise<StatusReport>;
}

export interface SnapshotWindow {
  start: number;
  end: number;
  state: WindowState;
  pages: number;
  items: number;
  attempts: number;
  error: string | null;
  updatedAt: string;
}

export interface SnapshotScope {
  account: string;
  resource: string;
  apiVersion: string;
  /** Oldest first. */
  windows: SnapshotWindow[];
  counts: Record<WindowState, number>;
  items: number;
  syncedTo: number | null;
  /** Seconds the incremental edge is behind now; null before the first complete pass. */
  edgeLagSeconds: number | null;
}

export interface SnapshotRun {
  id: string;
  command: string;
  account: string | null;
  startedAt: string;
  finishedAt: string | null;
  durationSeconds: number | null;
  status: string;
  requests: number;
  itemsWritten: number;
  error: string | null;
  /** Answers 429 its requests met, and the seconds its retries waited (0 for verify runs, which do not record them). */
  throttled: number;
  retryWaitSeconds: number;
  /** The process that ran it (host:pid:id). */
  holder: string | null;
}

export interface BackfillProgress {
  runId: string;
  account: string | null;
  windows: number;
  finished: number;
  /** Windows finished since the run started, and the seconds that took: the ETA's pace. */
  finishedThisRun: number;
  elapsedSeconds: number;
  etaSeconds: number | null;
}

export interface HourOfRequests {
  hour: string;
  requests: number;
  /** Answers 429. */
  throttled: number;
  retryWaitSeconds: number;
}

export interface StatusSnapshot {
  generatedAt: string;
  scopes: SnapshotScope[];
  /** Runs started in the last 7 days, newest first (sync_runs and verify_runs). */
  runs: SnapshotRun[];
  freshness: {
    tiers: Array<{
      account: string;
      resource: string;
      tier: string;
      sessions: number;
      oldestCheckAgeSeconds: number | null;
      p95CheckAgeSeconds: number | null;
    }>;
    changeLag: LagSummary[];
    webhooks: {
      lastDeliveryAt: string | null;
      deliveries24h: number;
      items24h: number;
      applied24h: number;
      detail: string | null;
    };
  };
  budget: {
    /** What the runs started in each of the last 24 hours sent, met and waited, oldest hour first. */
    hours: HourOfRequests[];
    /** What the configured tokens allow per hour, all accounts together; null when not known (no configuration). */
    allowedPerHour: number | null;
  };
  backfills: BackfillProgress[];
}

export interface SnapshotOptions {
  now: () => number;
  /** requests per second the configured tokens allow, all accounts together. */
  allowedPerSecond?: number | undefined;
  /**
   * Whether a run's process is known to be gone (it ran on this host and its
   * pid is dead): its run, still `running` in the table, shows as abandoned.
   * @default none known
   */
  holderIsDead?: ((holder: string) => boolean) | undefined;
  /** What the webhook stream's state means (the configuration knows the threshold). */
  webhookDetail?: ((report: StatusReport, nowSeconds: number) => string) | undefined;
}

const DAY = 86_400;
const num = (value: unknown): number => Number(value ?? 0);
const ageOf = (iso: string | null, now: number): number | null =>
  iso === null ? null : Math.max(0, Math.round(now - Date.parse(iso) / 1000));

function emptyCounts(): Record<WindowState, number> {
  return { done: 0, sealed: 0, pending: 0, running: 0, failed: 0, reopened: 0 };
}

async function readScopes(source: SnapshotSource, now: number): Promise<SnapshotScope[]> {
  const def = table('sync_windows');
  const rows = await source.query(
    `SELECT account, resource, api_version, window_start, window_end, status, pages, items, attempts, error,
       updated_at, synced_to
     FROM sync_windows ORDER BY account, resource, api_version, window_start`,
  );
  const scopes = new Map<string, SnapshotScope>();
  for (const raw of rows) {
    const r = readRow(def, raw);
    const key = `${r.account}\u0000${r.resource}\u0000${r.api_version}`;
    let scope = scopes.get(key);
    if (scope === undefined) {
      scope = {
        account: r.account as string,
        resource: r.resource as string,
        apiVersion: r.api_version as string,
        windows: [],
        counts: emptyCounts(),
        items: 0,
        syncedTo: null,
        edgeLagSeconds: null,
      };
      scopes.set(key, scope);
    }
    const state = windowState(r.status as string, r.synced_to as number | null);
    const window: SnapshotWindow = {
      start: r.window_start as number,
      end: r.window_end as number,
      state,
      pages: r.pages as number,
      items: r.items as number,
      attempts: r.attempts as number,
      error: r.error as string | null,
      updatedAt: r.updated_at as string,
    };
    scope.windows.push(window);
    scope.counts[state]++;
    scope.items += window.items;
    const syncedTo = r.synced_to as number | null;
    if (syncedTo !== null && (scope.syncedTo === null || syncedTo > scope.syncedTo)) scope.syncedTo = syncedTo;
  }
  for (const scope of scopes.values())
    scope.edgeLagSeconds = scope.syncedTo === null ? null : Math.max(0, Math.round(now - scope.syncedTo));
  return [...scopes.values()];
}

function runOf(r: Record<string, unknown>, command: string): SnapshotRun {
  const startedAt = r.started_at as string;
  const finishedAt = r.finished_at as string | null;
  return {
    id: r.id as string,
    command,
    account: r.account as string | null,
    startedAt,
    finishedAt,
    durationSeconds: finishedAt === null ? null : Math.max(0, (Date.parse(finishedAt) - Date.parse(startedAt)) / 1000),
    status: r.status as string,
    requests: num(r.requests),
    itemsWritten: num(r.items_written),
    error: r.error as string | null,
    throttled: num(r.throttled),
    retryWaitSeconds: num(r.retry_wait_ms) / 1000,
    holder: (r.holder as string | null) ?? null,
  };
}

async function readRuns(source: SnapshotSource, since: string): Promise<SnapshotRun[]> {
  const syncDef = table('sync_runs');
  const verifyDef = table('verify_runs');
  const syncRuns = await source.query(
    `SELECT id, command, account, started_at, finished_at, status, requests, items_written, error, holder, throttled,
       retry_wait_ms FROM sync_runs
     WHERE started_at >= ? ORDER BY started_at DESC LIMIT 1000`,
    [since],
  );
  const verifyRuns = await source.query(
    `SELECT id, account, started_at, finished_at, status, requests, error, holder FROM verify_runs
     WHERE started_at >= ? ORDER BY started_at DESC LIMIT 1000`,
    [since],
  );
  const runs = [
    ...syncRuns.map((r) => {
      const row = readRow(syncDef, r);
      return runOf(row, row.command as string);
    }),
    ...verifyRuns.map((r) => runOf(readRow(verifyDef, r), 'verify')),
  ];
  return runs.sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0));
}

/** A running backfill's windows finished so far, and its pace since it started. */
function backfillProgress(run: SnapshotRun, scopes: readonly SnapshotScope[], now: number): BackfillProgress {
  const started = Date.parse(run.startedAt);
  let windows = 0;
  let finished = 0;
  let finishedThisRun = 0;
  for (const scope of scopes) {
    if (run.account !== null && scope.account !== run.account) continue;
    for (const w of scope.windows) {
      windows++;
      if (w.state !== 'done' && w.state !== 'sealed') continue;
      finished++;
      if (Date.parse(w.updatedAt) >= started) finishedThisRun++;
    }
  }
  const elapsedSeconds = Math.max(0, now - started / 1000);
  const pace = elapsedSeconds > 0 ? finishedThisRun / elapsedSeconds : 0;
  const etaSeconds = pace > 0 ? Math.round((windows - finished) / pace) : null;
  return {
    runId: run.id,
    account: run.account,
    windows,
    finished,
    finishedThisRun,
    elapsedSeconds: Math.round(elapsedSeconds),
    etaSeconds,
  };
}

/** Requests, 429s and retry waits per clock hour of the last 24, from the runs that started in each. */
function hourly(runs: readonly SnapshotRun[], now: number): HourOfRequests[] {
  const top = Math.floor(now / 3600) * 3600;
  const hours = Array.from({ length: 24 }, (_, i) => ({
    hour: new Date((top - (23 - i) * 3600) * 1000).toISOString(),
    requests: 0,
    throttled: 0,
    retryWaitSeconds: 0,
  }));
  for (const run of runs) {
    const index = 23 - (top - Math.floor(Date.parse(run.startedAt) / 3_600_000) * 3600) / 3600;
    const hour = hours[index];
    if (hour === undefined) continue;
    hour.requests += run.requests;
    hour.throttled += run.throttled;
    hour.retryWaitSeconds += run.retryWaitSeconds;
  }
  return hours;
}

/** Everything the status page shows, read from the target's tables at one moment. */
export async function readSnapshot(source: SnapshotSource, options: SnapshotOptions): Promise<StatusSnapshot> {
  const now = options.now() / 1000;
  const report = await source.status({ tables: false });
  const scopes = await readScopes(source, now);
  const dead = options.holderIsDead ?? (() => false);
  const runs = (await readRuns(source, toIsoMicros(now - 7 * DAY))).map((r) =>
    r.status === 'running' && r.holder !== null && dead(r.holder)
      ? { ...r, status: 'abandoned', error: 'abandoned: its process is gone from this host' }
      : r,
  );
  const [deliveries] = await source.query(
    'SELECT COUNT(*) AS n, SUM(items) AS items, SUM(applied) AS applied FROM webhook_deliveries WHERE received_at >= ?',
    [toIsoMicros(now - DAY)],
  );
  return {
    generatedAt: toIsoMicros(now),
    scopes,
    runs,
    freshness: {
      tiers: report.refresh.map((t) => ({
        account: t.account,
        resource: t.resource,
        tier: t.tier,
        sessions: t.sessions,
        oldestCheckAgeSeconds: ageOf(t.oldestCheckAt, now),
        p95CheckAgeSeconds: ageOf(t.p95CheckAt, now),
      })),
      changeLag: summarizeLags(report.changeLags),
      webhooks: {
        lastDeliveryAt: report.lastDeliveryAt,
        deliveries24h: num(deliveries?.n),
        items24h: num(deliveries?.items),
        applied24h: num(deliveries?.applied),
        detail: options.webhookDetail?.(report, now) ?? null,
      },
    },
    budget: {
      hours: hourly(runs, now),
      allowedPerHour: options.allowedPerSecond === undefined ? null : Math.round(options.allowedPerSecond * 3600),
    },
    backfills: runs
      .filter((r) => r.command === 'backfill' && r.status === 'running')
      .map((r) => backfillProgress(r, scopes, now)),
  };
}
