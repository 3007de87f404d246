import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { Secret } from '../../src/config/secret.js';
import { spawnIvsync, type Child } from '../helpers/run-cli.js';
import { servedUrl } from '../helpers/served-url.js';
import { openSlowClient, SLOW_REQUESTS, statusOf, type SlowClient } from '../helpers/slow-client.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { expectTargetEqualsTruth, HISTORY_END, HISTORY_START } from '../helpers/truth.js';
import { until, whenRequests } from '../helpers/wait.js';
import { signedDelivery } from '../webhooks/harness.js';
import { parsePrometheusText } from './prometheus-text.js';

const tempDir = useTempDir();
let sim: RunningSimulator | undefined;
const children: Child[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await sim?.close();
  sim = undefined;
});

function daemon(args: readonly string[], env: Record<string, string>): Child {
  const child = spawnIvsync(['daemon', ...args], env);
  children.push(child);
  return child;
}

describe('the daemon process', () => {
  it('SIGTERM mid-run: commits the pages in flight, exits 0 promptly, and the next start loses nothing', async () => {
    sim = await startSimulator({ sessions: 800, seed: 31, rate: 30, burst: 30, latencyMs: [20, 60] });
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: writeConfig(dir),
      IVS_RATE: '30',
    };
    const args = ['--schedule', '* * * * * *', '--since', String(HISTORY_START)];
    const first = daemon(args, env);
    await whenRequests(sim, 15, first.exited);
    const sentAt = Date.now();
    first.kill('SIGTERM');
    const end = await first.exited;
    // A hang guard only; the stop time is measured in bench/soak.ts.
    expect(Date.now() - sentAt).toBeLessThan(10_000);
    expect(end.code).toBe(0);
    expect(query(db, 'SELECT status FROM sync_runs')).toEqual([{ status: 'interrupted' }]);
    expect(query(db, 'SELECT * FROM sync_leases WHERE name NOT LIKE ?', 'tick:%')).toEqual([]);

    const second = daemon(args, env);
    await until(
      () =>
        existsSync(db) && query(db, "SELECT 1 FROM sync_runs WHERE status = 'succeeded'").length > 0 ? true : undefined,
      45_000,
      'a run that succeeded',
    );
    second.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    expectTargetEqualsTruth(db, sim);
  });

  it('a background backfill at low priority keeps the incremental sync fresh, in one bucket', async () => {
    const now = Math.floor(Date.now() / 1000);
    // Old history for the backfill; new sessions arrive while it runs.
    sim = await startSimulator({
      sessions: 2500,
      seed: 32,
      rate: 12,
      burst: 12,
      latencyMs: [10, 30],
      from: HISTORY_START,
      to: HISTORY_END,
    });
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: writeConfig(dir, { crawl: { windowSeconds: 7 * 86_400, concurrency: 4, overlapSeconds: 60 } }),
      IVS_RATE: '12',
    };
    const period = 3;
    const child = daemon(
      [
        '--schedule',
        `*/${period} * * * * *`,
        '--since',
        String(now - 120),
        '--backfill-from',
        String(HISTORY_START),
        '--backfill-to',
        String(HISTORY_END),
        '--port',
        '0',
      ],
      env,
    );
    const added: string[] = [];
    const adder = setInterval(() => added.push(sim!.world.addSession({}).serviceId), 400);
    try {
      // Observe while the backfill is still paging its windows.
      const lags: number[] = [];
      let observations = 0;
      let backfillWindowsBefore = -1;
      let progressed = false;
      await until(
        () => {
          if (!existsSync(db)) return undefined;
          let h: { lag: number | null } | undefined;
          try {
            h = query<{ lag: number | null }>(db, 'SELECT MAX(freshness_lag_seconds) AS lag FROM v_sync_health')[0];
          } catch {
            return undefined; // still migrating
          }
          const pending =
            query<{ n: number }>(
              db,
              "SELECT COUNT(*) AS n FROM sync_windows WHERE window_end <= ? AND status IN ('pending', 'running')",
              HISTORY_END,
            )[0]?.n ?? 0;
          const done =
            query<{ n: number }>(
              db,
              "SELECT COUNT(*) AS n FROM sync_windows WHERE window_end <= ? AND status = 'done'",
              HISTORY_END,
            )[0]?.n ?? 0;
          const syncs =
            query<{ n: number }>(
              db,
              "SELECT COUNT(*) AS n FROM sync_runs WHERE command = 'sync' AND status = 'succeeded'",
            )[0]?.n ?? 0;
          if (syncs >= 2 && pending > 0 && h?.lag !== null && h?.lag !== undefined) {
            lags.push(Number(h.lag));
            observations++;
            if (backfillWindowsBefore >= 0 && done > backfillWindowsBefore) progressed = true;
            if (backfillWindowsBefore < 0) backfillWindowsBefore = done;
          }
          return observations >= 10 && progressed ? true : undefined;
        },
        // Samples while windows are still pending: often enough to see several before the backfill ends.
        { limitMs: 90_000, everyMs: 50, what: 'the incremental sync running beside the backfill' },
      );
      // Lag is "now minus the end of the last incremental pass": under one period
      // plus the run's own duration, never the backfill's length.
      expect(Math.max(...lags)).toBeLessThan(2 * period + 1);
      expect(progressed).toBe(true);
    } finally {
      clearInterval(adder);
    }
    // Sessions added while the backfill ran are stored once a sync that started after the last of them has succeeded.
    const stoppedAt = new Date().toISOString();
    await until(
      () =>
        query<{ n: number }>(
          db,
          "SELECT COUNT(*) AS n FROM sync_runs WHERE command = 'sync' AND status = 'succeeded' AND started_at > ?",
          stoppedAt,
        )[0]?.n
          ? true
          : undefined,
      60_000,
      'a sync after the last added session',
    );
    const stored = new Set(
      query<{ service_id: string }>(
        db,
        'SELECT service_id FROM authentications UNION SELECT service_id FROM fingerprints',
      ).map((r) => r.service_id),
    );
    expect(added.length).toBeGreaterThan(0);
    expect(added.filter((id) => !stored.has(id))).toEqual([]);
    child.kill('SIGTERM');
    const end = await child.exited;
    expect(end.code).toBe(0);
  }, 180_000);

  it('serves /healthz and Prometheus /metrics with the documented names and labels', async () => {
    sim = await startSimulator({ sessions: 200, seed: 33, rate: 100, burst: 100, faults: '429=0.05' });
    const dir = tempDir();
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${join(dir, 'ivsync.sqlite')}`,
      // The whole token of the two-second gap: what the first sync's passes leave still gives each resource a refresh.
      IVS_CONFIG: writeConfig(dir, { refresh: { budgetShare: 1 } }),
      IVS_RATE: '100',
      IVS_WEBHOOK_SECRET: 'hook-secret-of-the-metrics-daemon',
    };
    const child = daemon(['--schedule', '*/2 * * * * *', '--since', String(HISTORY_START), '--port', '0'], env);
    const base = await servedUrl(child);
    // The receiver is mounted beside the metrics; an unsigned delivery is refused and counted.
    const unsigned = await until(
      async () => {
        try {
          return await fetch(`${base}/webhooks`, {
            method: 'POST',
            body: '{}',
            headers: { 'Content-Type': 'application/json' },
          });
        } catch {
          return undefined;
        }
      },
      30_000,
      'the daemon listening',
    );
    expect(unsigned.status).toBe(401);
    const text = await until(
      async () => {
        try {
          const body = await (await fetch(`${base}/metrics`)).text();
          // The refresh tiers come from the status read after the run.
          return /ivsync_runs_total\{command="sync",status="succeeded"\} [1-9]/.test(body) &&
            /ivsync_refresh_sessions\{/.test(body)
            ? body
            : undefined;
        } catch {
          return undefined;
        }
      },
      45_000,
      'a scrape after a successful run',
    );
    const metrics = parsePrometheusText(text);
    const family = (name: string) => metrics.get(name);
    expect(family('ivsync_requests_total')?.type).toBe('counter');
    expect(
      family('ivsync_requests_total')?.samples.some(
        (s) =>
          s.labels.account === 'default' &&
          s.labels.route === 'POST /v1/search/authentications' &&
          s.labels.status === '200',
      ),
    ).toBe(true);
    expect(family('ivsync_rate_limited_total')?.samples[0]?.labels).toEqual({ account: 'default' });
    expect(family('ivsync_retry_wait_seconds_total')?.type).toBe('counter');
    expect(
      family('ivsync_items_written_total')
        ?.samples.map((s) => s.labels.resource)
        .sort(),
    ).toEqual(['authentications', 'fingerprints']);
    expect(family('ivsync_items_rejected_total')?.type).toBe('counter');
    expect(family('ivsync_windows')?.samples.some((s) => s.labels.status === 'done' && s.value > 0)).toBe(true);
    expect(
      family('ivsync_freshness_lag_seconds')
        ?.samples.map((s) => s.labels.resource)
        .sort(),
    ).toEqual(['authentications', 'fingerprints']);
    expect(family('ivsync_bucket_waiting_requests')?.samples[0]?.labels).toEqual({ account: 'default' });
    expect(family('ivsync_bucket_in_flight_requests')?.type).toBe('gauge');
    expect(family('ivsync_budget_requests_per_second')?.samples).toEqual([
      { name: 'ivsync_budget_requests_per_second', labels: { account: 'default' }, value: 100 },
    ]);
    // A secret is configured and nothing was delivered: the stream counts as quiet.
    expect(family('ivsync_webhook_stream_healthy')?.samples[0]?.value).toBe(0);
    expect(family('ivsync_failed_ticks_in_a_row')?.samples[0]?.value).toBe(0);
    expect(text).not.toMatch(/\n\n/);
    expect(family('ivsync_webhook_deliveries_total')?.samples).toEqual([
      {
        name: 'ivsync_webhook_deliveries_total',
        labels: { outcome: 'refused', reason: 'signature-missing' },
        value: 1,
      },
    ]);
    // The history is old: its non-final sessions are not re-checked yet, or on back-off after a later run; none is hot.
    const tiers = family('ivsync_refresh_sessions')?.samples ?? [];
    expect(new Set(tiers.map((x) => x.labels.resource))).toEqual(new Set(['authentications', 'fingerprints']));
    expect(tiers.filter((x) => x.labels.tier !== 'unchecked' && x.labels.tier !== 'backoff')).toEqual([]);
    expect(family('ivsync_refresh_oldest_check_age_seconds')?.type).toBe('gauge');
    // The check ages per tier and percentile, and the refresh budget of the runs, counted as they end.
    const ages = family('ivsync_refresh_check_age_seconds')?.samples ?? [];
    expect(new Set(ages.map((x) => x.labels.percentile))).toEqual(new Set(['50', '95', '100']));
    const budget = family('ivsync_refresh_requests_total')?.samples.filter((x) => x.labels.use === 'budget') ?? [];
    expect(budget.map((x) => x.labels.resource).sort()).toEqual(['authentications', 'fingerprints']);
    expect(budget.every((x) => x.value > 0)).toBe(true);
    expect(family('ivsync_change_lag_seconds')?.type).toBe('histogram');
    expect(family('ivsync_process_resident_memory_bytes')?.samples[0]?.value).toBeGreaterThan(0);
    expect(text).not.toMatch(/test-token|hook-secret/);

    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    // A secret is configured but nothing was delivered: /healthz says why sync polls.
    expect(await health.json()).toMatchObject({
      status: 'ok',
      webhooks: expect.stringMatching(
        /^no delivery received yet; sync polls the \d+ non-final sessions by age instead$/,
      ),
    });
    expect((await fetch(`${base}/nope`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
    child.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);
  });

  it(
    'its port closes slow clients (config webhooks.requestTimeoutMs, webhooks.maxConnections), counts them, and ' +
      'still takes a signed delivery',
    async () => {
      sim = await startSimulator({ sessions: 50, seed: 35 });
      const dir = tempDir();
      const db = join(dir, 'ivsync.sqlite');
      const config = writeConfig(dir, { webhooks: { requestTimeoutMs: 400, maxConnections: 10 } });
      const env = {
        IVS_BASE_URL: sim.url,
        IVS_API_TOKEN: 'test-token',
        IVS_DB: `sqlite:${db}`,
        IVS_CONFIG: config,
        IVS_WEBHOOK_SECRET: 'hook-secret-of-the-daemon',
      };
      const child = daemon(['--schedule', '0 0 1 1 *', '--port', '0'], env);
      const base = await servedUrl(child);
      const slow: SlowClient[] = [];
      for (let i = 0; i < 40; i++) slow.push(await openSlowClient(base, SLOW_REQUESTS[i % SLOW_REQUESTS.length]!));
      await Promise.all(slow.map((c) => c.closed));
      // Shed for newer ones (503) or timed out (408); how many of each depends on how fast they were opened.
      const statuses = slow.map((c) => statusOf(c.answer()));
      expect(statuses.filter((s) => s !== 503 && s !== 408)).toEqual([]);

      const { body, headers } = signedDelivery('daemon-delivery', new Secret('hook-secret-of-the-daemon'));
      const answer = await fetch(`${base}/webhooks`, {
        method: 'POST',
        body,
        headers: { 'Content-Type': 'application/json', ...headers },
      });
      expect(answer.status).toBe(200);
      expect(query(db, 'SELECT service_id, source FROM authentications')).toEqual([
        { service_id: 'daemon-delivery', source: 'webhook' },
      ]);
      const samples =
        parsePrometheusText(await (await fetch(`${base}/metrics`)).text()).get('ivsync_webhook_deliveries_total')
          ?.samples ?? [];
      const counted = (reason: string): number => samples.find((s) => s.labels.reason === reason)?.value ?? 0;
      expect(counted('request-timeout')).toBe(statuses.filter((s) => s === 408).length);
      expect(counted('connection-limit')).toBe(statuses.filter((s) => s === 503).length);
      expect(samples.find((s) => s.labels.outcome === 'accepted')?.value).toBe(1);
      child.kill('SIGTERM');
      expect((await child.exited).code).toBe(0);
    },
  );

  it('healthz answers 503 with the reason when runs fail, and a crash loop backs off and says why', async () => {
    sim = await startSimulator({ sessions: 50, seed: 34 });
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'wrong-token',
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: writeConfig(dir),
    };
    const child = daemon(['--schedule', '* * * * * *', '--since', String(HISTORY_START), '--port', '0'], env);
    const base = await servedUrl(child);
    const body = await until(
      async () => {
        try {
          const res = await fetch(`${base}/healthz`);
          const json = (await res.json()) as { reason?: string };
          return res.status === 503 && /crash loop/.test(json.reason ?? '') ? json : undefined;
        } catch {
          return undefined;
        }
      },
      30_000,
      'the crash loop',
    );
    expect(body.reason).toMatch(/crash loop: backing off until .*default: /);
    child.kill('SIGTERM');
    const end = await child.exited;
    expect(end.code).toBe(0);
    // The back-off came after three failed runs in a row, each recorded with its reason.
    const failed = query<{ error: string }>(db, "SELECT error FROM sync_runs WHERE status = 'failed'");
    expect(failed.length).toBeGreaterThanOrEqual(3);
    for (const run of failed) expect(run.error).toMatch(/rejected the token \(401\)/);
    expect(query(db, "SELECT count(*) AS n FROM sync_runs WHERE status = 'succeeded'")).toEqual([{ n: 0 }]);
    expect(end.stderr).not.toMatch(/wrong-token/);
  });
});
