import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { windowState } from '../../src/http/window-state.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { announceBrowser, browserAvailable, launchBrowser } from '../helpers/browser.js';
import { spawnIvsync, type Child } from '../helpers/run-cli.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';
import { until } from '../helpers/wait.js';
import { startUi } from './ui-helpers.js';

announceBrowser('status page browser tests');

/** docs/status-page.png is written again only when asked, so a test run leaves the checkout as it was. */
const DOCS_SCREENSHOT = fileURLToPath(new URL('../../docs/status-page.png', import.meta.url));
const UPDATE_SCREENSHOT = process.env.IVS_UPDATE_SCREENSHOT === '1';
const tempDir = useTempDir();
let sim: RunningSimulator | undefined;
const children: Child[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await sim?.close();
  sim = undefined;
});

function spawn(args: readonly string[], env: Record<string, string>): Child {
  const child = spawnIvsync(args, env);
  children.push(child);
  return child;
}

interface WindowRow {
  resource: string;
  window_start: number;
  status: string;
  synced_to: number | null;
}

describe.skipIf(!browserAvailable)('the status page in a browser', () => {
  it("shows a half-done backfill's pending windows where they lie, a daemon's runs, a failed run's error", async () => {
    sim = await startSimulator({
      sessions: 1500,
      seed: 44,
      rate: 25,
      burst: 25,
      latencyMs: [5, 15],
      from: HISTORY_START,
      to: HISTORY_END,
      tokens: { 'tok-a': 'alice', 'tok-b': 'bob' },
    });
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const accounts = [
      { name: 'history', tokenEnv: 'TOKEN_A' },
      { name: 'live', tokenEnv: 'TOKEN_B' },
    ];
    const config = writeConfig(dir, {
      accounts,
      crawl: { windowSeconds: 14 * 86_400, concurrency: 1, overlapSeconds: 60 },
    });
    const env = {
      IVS_BASE_URL: sim.url,
      TOKEN_A: 'tok-a',
      TOKEN_B: 'tok-b',
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: config,
      IVS_RATE: '25',
    };

    // A backfill of one account, killed once some of its windows are paged and before the rest are.
    const backfill = spawn(
      ['backfill', '--account', 'history', '--from', String(HISTORY_START), '--to', String(HISTORY_END)],
      env,
    );
    await until(
      () => {
        if (!existsSync(db)) return undefined;
        try {
          const done =
            query<{ n: number }>(db, "SELECT COUNT(*) AS n FROM sync_windows WHERE status = 'done'")[0]?.n ?? 0;
          return done >= 6 ? true : undefined;
        } catch {
          // Not migrated yet.
          return undefined;
        }
      },
      60_000,
      'a third of the backfill',
    );
    backfill.kill('SIGKILL');
    await backfill.exited;

    // A daemon syncing the other account, until the service goes away and a run fails.
    const daemon = spawn(
      [
        'daemon',
        '--account',
        'live',
        '--schedule',
        '* * * * * *',
        '--since',
        String(Math.floor(Date.now() / 1000) - 3600),
      ],
      env,
    );
    await until(
      () =>
        query(db, "SELECT 1 FROM sync_runs WHERE command = 'sync' AND status = 'succeeded'").length >= 2
          ? true
          : undefined,
      60_000,
      'two daemon runs',
    );
    await sim.close();
    sim = undefined;
    const failed = await until(
      () => query<{ id: string; error: string }>(db, "SELECT id, error FROM sync_runs WHERE status = 'failed'")[0],
      60_000,
      'a failed run',
    );
    daemon.kill('SIGKILL');
    await daemon.exited;

    const ui = await startUi({ IVS_DB: `sqlite:${db}`, IVS_CONFIG: config });
    children.push(ui.child);
    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      const offsite: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(ui.url) && !request.url().startsWith('data:')) offsite.push(request.url());
      });
      await page.goto(ui.url);
      await page.waitForSelector('body[data-loaded="true"]');

      // Coverage: every window of the killed backfill, in its state and in the order of its range.
      const windows = query<WindowRow>(
        db,
        `SELECT resource, window_start, status, synced_to FROM sync_windows
         WHERE account = 'history' AND resource = 'authentications' ORDER BY window_start`,
      );
      const strip = page.locator('[data-scope="history/authentications/1.4"] rect');
      const drawn = await strip.evaluateAll((rects) =>
        rects.map(
          (r) =>
            [Number(r.getAttribute('data-start')), r.getAttribute('data-state'), Number(r.getAttribute('x'))] as const,
        ),
      );
      expect(drawn.map(([start, state]) => [start, state])).toEqual(
        windows.map((w) => [w.window_start, windowState(w.status, w.synced_to)]),
      );
      const states = new Set(drawn.map(([, state]) => state));
      expect(states.has('done') && states.has('pending')).toBe(true);
      // Pending windows are drawn after the paged ones, where their ranges lie.
      const xs = drawn.map(([, , x]) => x);
      expect(xs).toEqual([...xs].sort((a, b) => a - b));
      const title = await strip.first().locator('title').textContent();
      expect(title).toMatch(/pages, \d+ items/);

      // The daemon's runs, each linked to its detail, and the failed one's error.
      const runs = query<{ id: string; status: string }>(db, "SELECT id, status FROM sync_runs WHERE account = 'live'");
      for (const run of runs)
        await expect
          .poll(() => page.locator(`tr[data-run-id="${run.id}"]`).getAttribute('data-status'))
          .toBe(run.status);
      // The backfill killed with SIGKILL never ended its row: its pid is gone, so it shows as abandoned.
      const killed = query<{ id: string }>(db, "SELECT id FROM sync_runs WHERE command = 'backfill'")[0]!;
      expect(await page.locator(`tr[data-run-id="${killed.id}"]`).getAttribute('data-status')).toBe('abandoned');
      const failedRow = page.locator(`tr[data-run-id="${failed.id}"]`);
      expect(await failedRow.locator('.error').textContent()).toBe(failed.error);
      await failedRow.locator('a').click();
      await page.waitForSelector('#detail:not([hidden]) h2');
      expect(await page.locator('#detail .error').textContent()).toBe(failed.error);
      await page.locator('#detail a', { hasText: 'close' }).click();

      const shot = UPDATE_SCREENSHOT ? DOCS_SCREENSHOT : join(dir, 'status-page.png');
      mkdirSync(join(shot, '..'), { recursive: true });
      await page.screenshot({ path: shot, fullPage: true });
      expect(existsSync(shot)).toBe(true);
      expect(problems).toEqual([]);
      expect(offsite).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 180_000);
});
