import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import type { StatusSnapshot } from '../../src/http/status-snapshot.js';
import { runIvsync, spawnIvsync, type Child } from '../helpers/run-cli.js';
import { until } from '../helpers/wait.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';
import { startUi } from './ui-helpers.js';
import { TWO_TOKENS, twoAccountEnv } from '../helpers/two-accounts.js';

const tempDir = useTempDir();
let sim: RunningSimulator | undefined;
const children: Child[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await sim?.close();
  sim = undefined;
});

const UI_TOKEN = 'ui-token-that-must-never-show';

describe('GET /api/status', () => {
  it('shows, per account and resource, exactly what the tables hold', async () => {
    sim = await startSimulator({
      sessions: 300,
      seed: 21,
      // The service allows less than ivsync asks for (IVS_RATE): some answers are 429s, and the runs record them.
      rate: 10,
      burst: 2,
      from: HISTORY_START,
      to: HISTORY_END,
      tokens: TWO_TOKENS,
    });
    const { db, env } = twoAccountEnv(tempDir(), sim.url, { IVS_RATE: '200' });
    const backfill = await runIvsync(['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)], env);
    expect(backfill.code, backfill.stderr).toBe(0);
    // Reopens a stretch of one account's history: its windows show as reopened.
    const third = Math.floor((HISTORY_END - HISTORY_START) / 3);
    const stretch = ['--from', String(HISTORY_START + third), '--to', String(HISTORY_START + 2 * third)];
    const reset = await runIvsync(['reset', '--account', 'a2', '--resource', 'authentications', ...stretch], env);
    expect(reset.code, reset.stderr).toBe(0);

    const ui = await startUi({ ...env, IVS_UI_TOKEN: UI_TOKEN });
    children.push(ui.child);
    const res = await fetch(`${ui.url}api/status`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(UI_TOKEN);
    expect(text).not.toContain('tok-a');
    const snapshot = JSON.parse(text) as StatusSnapshot;

    const windows = query<{
      account: string;
      resource: string;
      api_version: string;
      window_start: number;
      window_end: number;
      status: string;
      pages: number;
      items: number;
      synced_to: number | null;
    }>(
      db,
      `SELECT account, resource, api_version, window_start, window_end, status, pages, items, synced_to
       FROM sync_windows ORDER BY account, resource, api_version, window_start`,
    );
    const scopes = [...new Set(windows.map((w) => `${w.account}/${w.resource}/${w.api_version}`))];
    expect(snapshot.scopes.map((s) => `${s.account}/${s.resource}/${s.apiVersion}`)).toEqual(scopes);
    expect(scopes).toHaveLength(4);
    for (const scope of snapshot.scopes) {
      const rows = windows.filter(
        (w) => w.account === scope.account && w.resource === scope.resource && w.api_version === scope.apiVersion,
      );
      expect(scope.windows.map((w) => [w.start, w.end, w.pages, w.items])).toEqual(
        rows.map((w) => [w.window_start, w.window_end, w.pages, w.items]),
      );
      const reopened = rows.filter((w) => w.status === 'pending' && w.synced_to !== null).length;
      expect(scope.counts.reopened).toBe(reopened);
      expect(scope.counts.done + scope.counts.sealed).toBe(
        rows.filter((w) => w.status === 'done' || w.status === 'sealed').length,
      );
      expect(scope.counts.pending).toBe(rows.filter((w) => w.status === 'pending').length - reopened);
      expect(scope.items).toBe(rows.reduce((sum, w) => sum + w.items, 0));
      expect(scope.syncedTo).toBe(Math.max(...rows.map((w) => w.synced_to ?? -Infinity)));
    }
    expect(
      snapshot.scopes.find((s) => s.account === 'a2' && s.resource === 'authentications')!.counts.reopened,
    ).toBeGreaterThan(0);
    expect(snapshot.scopes.find((s) => s.account === 'a1' && s.resource === 'authentications')!.counts.reopened).toBe(
      0,
    );

    type RunRow = { id: string; command: string; status: string; requests: number; items_written: number };
    const runs = query<RunRow & { throttled: number; retry_wait_ms: number }>(
      db,
      'SELECT id, command, status, requests, items_written, throttled, retry_wait_ms FROM sync_runs ORDER BY id',
    );
    expect(runs.length).toBeGreaterThan(0);
    expect(snapshot.runs.map((r) => [r.id, r.command, r.status, r.requests, r.itemsWritten]).sort()).toEqual(
      runs.map((r) => [r.id, r.command, r.status, r.requests, r.items_written]).sort(),
    );
    const hourly = snapshot.budget.hours.reduce((sum, h) => sum + h.requests, 0);
    expect(hourly).toBe(runs.reduce((sum, r) => sum + r.requests, 0));
    const throttled = runs.reduce((sum, r) => sum + r.throttled, 0);
    expect(throttled).toBeGreaterThan(0);
    expect(snapshot.budget.hours.reduce((sum, h) => sum + h.throttled, 0)).toBe(throttled);
    const waited = snapshot.budget.hours.reduce((sum, h) => sum + h.retryWaitSeconds, 0);
    expect(waited).toBeCloseTo(runs.reduce((sum, r) => sum + r.retry_wait_ms, 0) / 1000, 6);
    // Two accounts at IVS_RATE requests a second.
    expect(snapshot.budget.allowedPerHour).toBe(2 * 200 * 3600);

    const nonFinal = query<{ n: number }>(
      db,
      'SELECT COUNT(*) AS n FROM authentications WHERE NOT result_final AND missing_since IS NULL',
    )[0]!.n;
    const tiers = snapshot.freshness.tiers.filter((t) => t.resource === 'authentications');
    expect(tiers.reduce((sum, t) => sum + t.sessions, 0)).toBe(nonFinal);

    // The run's detail: its row and the windows it wrote.
    const backfillRun = runs.find((r) => r.command === 'backfill')!;
    const detail = (await (await fetch(`${ui.url}runs/${backfillRun.id}`)).json()) as {
      state: string;
      pages: number;
      run: { id: string };
    };
    expect(detail.run.id).toBe(backfillRun.id);
    expect(detail.state).toBe('succeeded');
    expect(detail.pages).toBeGreaterThan(0);
    expect((await fetch(`${ui.url}runs/no-such-run`)).status).toBe(404);

    // Read-only: nothing on the page's server writes.
    expect((await fetch(`${ui.url}runs`, { method: 'POST', body: '{"account":"a1","command":"sync"}' })).status).toBe(
      404,
    );
    expect((await fetch(`${ui.url}api/status`, { method: 'POST', body: '{}' })).status).toBe(405);
  }, 90_000);

  it('beyond loopback: refuses to start without IVS_UI_TOKEN, then asks every route but /healthz for it', async () => {
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const env = { IVS_DB: `sqlite:${db}`, IVS_CONFIG: writeConfig(dir) };
    expect((await runIvsync(['migrate'], env)).code).toBe(0);

    const refused = await runIvsync(['ui', '--port', '0', '--host', '0.0.0.0'], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/needs IVS_UI_TOKEN set/);

    const ui = await startUi({ ...env, IVS_UI_TOKEN: UI_TOKEN }, ['--host', '0.0.0.0']);
    children.push(ui.child);
    const base = ui.url.replace('0.0.0.0', '127.0.0.1');
    expect((await fetch(`${base}healthz`)).status).toBe(200);
    for (const path of ['', 'api/status', 'runs/x']) {
      expect((await fetch(`${base}${path}`)).status).toBe(401);
      expect((await fetch(`${base}${path}`, { headers: { Authorization: 'Bearer wrong' } })).status).toBe(401);
    }
    const page = await fetch(base, { headers: { Authorization: `Bearer ${UI_TOKEN}` } });
    expect(page.status).toBe(200);
    expect(await page.text()).not.toContain(UI_TOKEN);
    const api = await fetch(`${base}api/status`, { headers: { Authorization: `Bearer ${UI_TOKEN}` } });
    expect(api.status).toBe(200);
    expect(await api.text()).not.toContain(UI_TOKEN);
  });

  it("shows a running backfill's progress from its windows, and its ETA at its pace", async () => {
    sim = await startSimulator({
      sessions: 1500,
      seed: 23,
      rate: 20,
      burst: 20,
      latencyMs: [5, 15],
      from: HISTORY_START,
      to: HISTORY_END,
    });
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const config = writeConfig(dir, { crawl: { windowSeconds: 14 * 86_400, concurrency: 1, overlapSeconds: 60 } });
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: config,
      IVS_RATE: '20',
    };
    const backfill = spawnIvsync(['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)], env);
    children.push(backfill);
    await until(
      () => {
        try {
          const [row] = query<{ n: number }>(db, "SELECT COUNT(*) AS n FROM sync_windows WHERE status = 'done'");
          return (row?.n ?? 0) >= 4 ? true : undefined;
        } catch {
          // Not migrated yet.
          return undefined;
        }
      },
      60_000,
      'a few windows of the backfill',
    );
    // Paused, not ended: its process lives (so its run is not abandoned) and its tables hold still.
    backfill.kill('SIGSTOP');
    const ui = await startUi({ IVS_DB: `sqlite:${db}`, IVS_CONFIG: config });
    children.push(ui.child);
    const snapshot = (await (await fetch(`${ui.url}api/status`)).json()) as StatusSnapshot;
    const [run] = query<{ id: string; started_at: string }>(
      db,
      "SELECT id, started_at FROM sync_runs WHERE status = 'running'",
    );
    const windows = query<{ status: string; updated_at: string }>(db, 'SELECT status, updated_at FROM sync_windows');
    const finished = windows.filter((w) => w.status === 'done' || w.status === 'sealed');
    expect(snapshot.backfills).toHaveLength(1);
    const progress = snapshot.backfills[0]!;
    expect(progress.runId).toBe(run!.id);
    expect(progress.windows).toBe(windows.length);
    expect(progress.finished).toBe(finished.length);
    expect(progress.finishedThisRun).toBe(finished.filter((w) => w.updated_at >= run!.started_at).length);
    expect(progress.etaSeconds).not.toBeNull();
    // At its own pace: the windows left at the rate it finished windows so far.
    const pace = progress.finishedThisRun / progress.elapsedSeconds;
    expect(progress.etaSeconds!).toBeGreaterThan(((windows.length - finished.length) / pace) * 0.5);
    backfill.kill('SIGKILL');
  }, 90_000);
});
