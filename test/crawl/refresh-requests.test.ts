import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { SEARCHES_KEPT } from '../../src/simulator/simulator-stats.js';
import { runIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';

const DAY = 86_400;
const simulator = useSimulators({ sessions: 120, seed: 44, rate: 5_000, burst: 5_000, nonFinalShare: 0.25 });
const tempDir = useTempDir();

type Resource = 'authentications' | 'fingerprints';
const RESOURCES: readonly Resource[] = ['authentications', 'fingerprints'];

interface SyncJson {
  run: string;
  requests: number;
  outcomes: Array<{
    resource: Resource;
    from: number;
    refreshRepaged: number;
    refreshPlanned: number;
    refreshRequests: number;
  }>;
}

/** What the simulator has counted so far: every attempt per route and status, and the searches it logged. */
function countsOf(sim: RunningSimulator): { byRoute: Record<string, number>; searches: number; owner: number } {
  const byRoute: Record<string, number> = {};
  for (const [route, statuses] of Object.entries(sim.stats.byRoute))
    byRoute[route] = Object.values(statuses).reduce((a, b) => a + b, 0);
  return { byRoute, searches: sim.stats.searches.length, owner: sim.stats.byOwner['alice']?.requests ?? 0 };
}

/**
 * The attempts the simulator answered for a sync's refresh of v1.4 sessions:
 * every one at a session by id (only the refresh GETs one), and the searches
 * over ranges below the resource's pass (the parts it paged again; the pass
 * asks from a second before its start). A search whose attempt met a fault is
 * not in the log, so the refresh's repages are counted only without faults.
 */
function refreshAtService(sim: RunningSimulator, before: ReturnType<typeof countsOf>, report: SyncJson): number {
  const after = countsOf(sim);
  let n = 0;
  for (const resource of RESOURCES) {
    const route = `GET /v1/${resource}/{service_id}`;
    n += (after.byRoute[route] ?? 0) - (before.byRoute[route] ?? 0);
    const passFrom = Math.floor(report.outcomes.find((o) => o.resource === resource)!.from);
    for (const s of sim.stats.searches.slice(before.searches)) {
      const range = s.range as { start: number } | null;
      if (s.route === `POST /v1/search/${resource}` && range !== null && range.start < passFrom - 1) n++;
    }
  }
  return n;
}

/** A window of authentications holding at least two non-final sessions: the first and the last of them. */
function windowWithTwo(db: string): { lo: number; hi: number } {
  const [row] = query<{ lo: number; hi: number }>(
    db,
    `SELECT MIN(a.created_epoch) AS lo, MAX(a.created_epoch) AS hi FROM sync_windows w
     JOIN authentications a ON a.created_epoch >= w.window_start AND a.created_epoch < w.window_end
     WHERE w.resource = 'authentications' AND NOT a.result_final
     GROUP BY w.window_start HAVING COUNT(*) >= 2 ORDER BY w.window_start LIMIT 1`,
  );
  expect(row, 'a window with two non-final authentications').toBeDefined();
  return row!;
}

// The plan's cost is an estimate: a part may hold more sessions than the window's last pass suggests, and a failed
// attempt is sent again. What sync_runs and the report say the refresh spent is what it sent, as the service counts.
it.each([
  {
    name: 'a paged part holding more sessions than its estimate',
    windowSeconds: 30 * DAY,
    faults: '',
    // Sessions uploaded late into the part between two non-final sessions: three pages more than the plan's one.
    atService: (sim: RunningSimulator, db: string) => {
      const { lo, hi } = windowWithTwo(db);
      for (let i = 1; i <= 75; i++) sim.world.addSession({ epoch: lo + ((hi - lo) * i) / 76, final: true });
    },
    repaged: true,
  },
  {
    name: 'GETs retried after failed attempts',
    // Hourly windows: in this seed's history no window holds two non-final sessions, so every check is a GET.
    windowSeconds: 3600,
    faults: '500=0.3',
    atService: () => undefined,
    repaged: false,
  },
])(
  'sync_runs.refresh_spent is the requests the refresh sent: $name',
  async ({ windowSeconds, faults, atService, repaged }) => {
    const now = Math.floor(Date.now() / 1000);
    const sim = await simulator({ from: now - 30 * DAY, to: now - 60 });
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const config = writeConfig(dir, { crawl: { windowSeconds, overlapSeconds: 3600, concurrency: 8 } });
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: config,
      IVS_RATE: '50',
    };
    const backfill = await runIvsync(['backfill', '--from', String(now - 31 * DAY), '--to', String(now)], env);
    expect(backfill.code, backfill.stderr.slice(-600)).toBe(0);

    atService(sim, db);
    sim.setFaults(faults);
    const before = countsOf(sim);
    const synced = await runIvsync(['sync', '--json'], env, undefined, () => (now + 300) * 1000);
    expect(synced.code, synced.stderr.slice(-600)).toBe(0);
    const report = JSON.parse(synced.stdout) as SyncJson;
    expect(sim.stats.searches.length).toBeLessThan(SEARCHES_KEPT);
    expect(report.outcomes.some((o) => o.refreshRepaged > 0)).toBe(repaged);

    const sent = refreshAtService(sim, before, report);
    // The case is one where the plan's estimate and what was sent differ.
    expect(sent).not.toBe(report.outcomes.reduce((n, o) => n + o.refreshPlanned, 0));
    const [run] = query<{ requests: number; refresh_spent: number }>(
      db,
      'SELECT requests, refresh_spent FROM sync_runs WHERE id = ?',
      report.run,
    );
    expect(run!.refresh_spent).toBe(sent);
    expect(report.outcomes.reduce((n, o) => n + o.refreshRequests, 0)).toBe(sent);
    // The refresh's count is a part of the run's, not added to it again.
    expect(run!.requests).toBe(countsOf(sim).owner - before.owner);
    expect(report.requests).toBe(run!.requests);
  },
);
