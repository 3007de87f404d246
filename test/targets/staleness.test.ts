import { describe, expect, it } from 'vitest';
import { DaemonMetrics } from '../../src/daemon/daemon-metrics.js';
import { isoFromMicros, toIsoMicros } from '../../src/normalize/time.js';
import { openSink } from '../../src/store/open-sink.js';
import { parsePrometheusText, type MetricFamily } from '../daemon/prometheus-text.js';
import { runIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { eachTarget } from './each-target.js';
import { readTarget } from './read-target.js';

const simulator = useSimulators({ sessions: 240, seed: 87, rate: 5000, burst: 5000, nonFinalShare: 0.3 });
const tempDir = useTempDir();
const DAY = 86_400;
const RUN_MS = 300_000;
const RESOURCES = ['authentications', 'fingerprints'] as const;

/** The p-th percentile by nearest rank, written out here rather than taken from the code under test. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil((p / 100) * sorted.length) - 1]!;
}

type Key = string;
const keyOf = (...parts: string[]): Key => parts.join('/');

/**
 * The age of the last check of every non-final session, grouped by account,
 * resource and tier, from the rows themselves: session_refresh's check, or
 * for a session never checked when its row was last observed.
 */
async function expectedAges(url: string, nowEpoch: number): Promise<Map<Key, number[]>> {
  const checks = new Map<Key, { tier: string; checkedAt: string }>();
  for (const r of await readTarget(url, 'SELECT resource, service_id, tier, checked_at FROM session_refresh')) {
    const check = { tier: String(r.tier), checkedAt: String(r.checked_at) };
    checks.set(keyOf(String(r.resource), String(r.service_id)), check);
  }
  const ages = new Map<Key, number[]>();
  for (const resource of RESOURCES) {
    const columns = 'service_id, account, result_final, missing_since, last_synced_at';
    const rows = await readTarget(url, `SELECT ${columns} FROM ${resource}`);
    for (const row of rows) {
      if (Boolean(row.result_final) || row.missing_since !== null) continue;
      const check = checks.get(keyOf(resource, String(row.service_id)));
      const tier = check?.tier ?? 'unchecked';
      const at = check?.checkedAt ?? String(row.last_synced_at);
      const key = keyOf(String(row.account), resource, tier);
      ages.set(key, [...(ages.get(key) ?? []), nowEpoch - Date.parse(at) / 1000]);
    }
  }
  return ages;
}

interface SyncJson {
  run: string;
  outcomes: Array<{ account: string; resource: string; refreshRequests: number; refreshBudget: number }>;
}

interface StatusJson {
  refresh: Array<{
    account: string;
    resource: string;
    tier: string;
    sessions: number;
    checkAgeSeconds: { p50: number; p95: number; max: number };
  }>;
  changeLag: Array<{
    account: string;
    resource: string;
    changes: number;
    p50Seconds: number;
    p95Seconds: number;
    maxSeconds: number;
  }>;
  lastRuns: Array<{ id: string; refresh: { budget: number; spent: number; saved: number } | null }>;
}

const sample = (family: MetricFamily | undefined, labels: Record<string, string>, name?: string): number | undefined =>
  family?.samples.find(
    (s) => (name === undefined || s.name === name) && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  )?.value;

eachTarget((dialect, target) => {
  // SQLite and PostgreSQL; DuckDB reads the figures with the same SQL (test/store/staleness-figures.test.ts).
  describe.skipIf(dialect === 'duckdb')('staleness', () => {
    it('status --json and /metrics give the check ages, refresh spending and lags the tables hold', async () => {
      const url = target().url;
      const start = Math.floor(Date.now() / 1000);
      let t = start * 1000;
      const clock = () => t;
      // The service and ivsync on one injected clock: the service dates its changes by it.
      const sim = await simulator({ from: start - 20 * DAY, to: start - 60, clock });
      const config = writeConfig(tempDir(), {
        crawl: { windowSeconds: DAY, concurrency: 1, overlapSeconds: 3600 },
        refresh: { hotSeconds: 3 * DAY },
      });
      const env = {
        IVS_BASE_URL: sim.url,
        IVS_API_TOKEN: 'test-token',
        IVS_DB: url,
        IVS_CONFIG: config,
        IVS_RATE: '5000',
        IVS_API_VERSION: '2',
        IVS_SINCE: String(start - 21 * DAY),
      };
      const sync = async (): Promise<SyncJson> => {
        const result = await runIvsync(['sync', '--json'], env, undefined, clock);
        expect(result.code, result.stderr.slice(-600)).toBe(0);
        return JSON.parse(result.stdout) as SyncJson;
      };
      // Runs three hours apart: the sessions the first stored come due for their first check a slice at a
      // time (spread over a day), so the back-off tier's checks are of many ages.
      for (let run = 0; run < 6; run++) {
        await sync();
        t += 3 * 3600_000;
      }

      // From here on a daemon would count: its metrics see what is stored after it started.
      const metrics = new DaemonMetrics({ buckets: () => [], clock, processMetrics: false });
      const young = await readTarget(
        url,
        `SELECT service_id FROM authentications WHERE NOT result_final AND missing_since IS NULL AND created_epoch > ?
         ORDER BY service_id`,
        [t / 1000 - 2 * DAY],
      );
      expect(young.length, 'young non-final authentications').toBeGreaterThanOrEqual(3);
      const changed = new Map<string, number>();
      const [flagged, finalized, both] = young.map((r) => String(r.service_id));
      for (const id of [flagged!, both!]) changed.set(id, sim.world.setFlag(id, 'rejected_by_operator').updatedMicros!);
      t += 40_000;
      for (const id of [finalized!, both!]) changed.set(id, sim.world.finalize(id).updatedMicros!);
      t += RUN_MS - 40_000;
      const runAt = t;
      const report = await sync();
      const spending = report.outcomes.map((o) => ({
        ...o,
        refresh: { budget: o.refreshBudget, requests: o.refreshRequests },
      }));
      metrics.refreshFinished(spending);
      t += 90_000;
      const now = t / 1000;

      // Each change the service made is in change_lags at the service's own time, stored by the next run.
      const lagColumns = 'resource, service_id, changed_at, stored_at, lag_seconds';
      const lagRows = await readTarget(url, `SELECT ${lagColumns} FROM change_lags`);
      for (const [id, micros] of changed) {
        const row = lagRows.find((r) => r.service_id === id && r.changed_at === isoFromMicros(micros));
        expect(row, `change_lags row of ${id}`).toBeDefined();
        expect(row!.stored_at).toBe(toIsoMicros(runAt / 1000));
        expect(Number(row!.lag_seconds)).toBeCloseTo((runAt - micros / 1000) / 1000, 3);
      }
      for (const r of lagRows) {
        const lag = (Date.parse(String(r.stored_at)) - Date.parse(String(r.changed_at))) / 1000;
        expect(Number(r.lag_seconds)).toBeCloseTo(lag, 2);
      }

      const status = JSON.parse((await runIvsync(['status', '--json'], env, undefined, clock)).stdout) as StatusJson;
      const sink = await openSink(url);
      try {
        metrics.observe(await sink.status());
      } finally {
        await sink.close();
      }
      const families = parsePrometheusText(await metrics.text());

      // Check ages per account, resource and tier: status and the gauges agree with the rows.
      const ages = await expectedAges(url, now);
      expect(ages.size).toBeGreaterThan(1);
      expect(status.refresh.map((r) => keyOf(r.account, r.resource, r.tier)).sort()).toEqual([...ages.keys()].sort());
      const gauge = families.get('ivsync_refresh_check_age_seconds');
      for (const [key, list] of ages) {
        const [account, resource, tier] = key.split('/') as [string, string, string];
        const expected = { p50: percentile(list, 50), p95: percentile(list, 95), max: Math.max(...list) };
        const row = status.refresh.find((r) => keyOf(r.account, r.resource, r.tier) === key)!;
        expect(row.sessions, key).toBe(list.length);
        const rounded = { p50: Math.round(expected.p50), p95: Math.round(expected.p95), max: Math.round(expected.max) };
        expect(row.checkAgeSeconds, key).toEqual(rounded);
        for (const [rank, value] of [
          ['50', expected.p50],
          ['95', expected.p95],
          ['100', expected.max],
        ] as const) {
          expect(sample(gauge, { account, resource, tier, percentile: rank }), `${key} p${rank}`).toBeCloseTo(value, 1);
        }
      }

      // Observed lag: status summarizes the rows; the histogram counts those stored since the metrics started.
      for (const resource of RESOURCES) {
        const lags = lagRows.filter((r) => r.resource === resource).map((r) => Number(r.lag_seconds));
        const summary = status.changeLag.find((l) => l.resource === resource);
        if (lags.length === 0) {
          expect(summary).toBeUndefined();
          continue;
        }
        const p50Seconds = percentile(lags, 50);
        const p95Seconds = percentile(lags, 95);
        const maxSeconds = Math.max(...lags);
        expect(summary).toEqual(expect.objectContaining({ changes: lags.length, p50Seconds, p95Seconds, maxSeconds }));
        const sinceMetrics = (r: Record<string, unknown>) => Date.parse(String(r.stored_at)) > runAt - RUN_MS;
        const recent = lagRows.filter((r) => r.resource === resource && sinceMetrics(r));
        const histogram = families.get('ivsync_change_lag_seconds');
        const labels = { account: 'default', resource };
        expect(sample(histogram, labels, 'ivsync_change_lag_seconds_count') ?? 0, resource).toBe(recent.length);
        const sum = recent.reduce((n, r) => n + Number(r.lag_seconds), 0);
        expect(sample(histogram, labels, 'ivsync_change_lag_seconds_sum') ?? 0, resource).toBeCloseTo(sum, 3);
      }
      const authentications = status.changeLag.find((l) => l.resource === 'authentications');
      expect(authentications?.changes).toBeGreaterThanOrEqual(changed.size);

      // Refresh spending: sync_runs keeps each run's, status shows it, the counters sum it per account and resource.
      const runs = await readTarget(url, 'SELECT id, refresh_budget, refresh_spent FROM sync_runs');
      expect(runs).toHaveLength(7);
      for (const run of runs) {
        const budget = Number(run.refresh_budget);
        const spent = Number(run.refresh_spent);
        expect(budget).toBeGreaterThan(0);
        expect(spent).toBeLessThanOrEqual(budget);
        expect(status.lastRuns.find((r) => r.id === run.id)?.refresh).toEqual({ budget, spent, saved: budget - spent });
      }
      const last = runs.find((r) => r.id === report.run)!;
      const counter = families.get('ivsync_refresh_requests_total');
      const spentOf = (use: string) =>
        RESOURCES.reduce((n, resource) => n + (sample(counter, { account: 'default', resource, use }) ?? 0), 0);
      expect(spentOf('budget')).toBe(Number(last.refresh_budget));
      expect(spentOf('spent')).toBe(Number(last.refresh_spent));
      expect(spentOf('saved')).toBe(Number(last.refresh_budget) - Number(last.refresh_spent));
      expect(spentOf('spent')).toBeGreaterThan(0);
    });
  });
});
