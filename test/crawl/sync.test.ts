import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { cliError, errorMessage, runIvsync } from '../helpers/run-cli.js';
import { execute, query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { expectTargetEqualsTruth, HISTORY_END, HISTORY_START } from '../helpers/truth.js';
import { useSimulators } from '../helpers/simulators.js';

const tempDir = useTempDir();
let sim: RunningSimulator | undefined;
const simulator = useSimulators({});

async function backfilled() {
  sim = await simulator({ sessions: 300, rate: 2000, burst: 2000, seed: 11, nonFinalShare: 0.1 });
  const dir = tempDir();
  const db = join(dir, 'ivsync.sqlite');
  const env = {
    IVS_BASE_URL: sim.url,
    IVS_API_TOKEN: 'test-token',
    IVS_DB: `sqlite:${db}`,
    IVS_CONFIG: writeConfig(dir),
    IVS_RATE: '2000',
  };
  const result = await runIvsync(['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)], env);
  expect(result.code).toBe(0);
  return { sim, db, env };
}

function nonFinalIds(db: string, resource: string): string[] {
  return query<{ service_id: string }>(
    db,
    `SELECT service_id FROM ${resource} WHERE result_final = 0 ORDER BY service_id`,
  ).map((r) => r.service_id);
}

describe('sync', () => {
  it('needs --since for a target that does not exist yet: a usage error, before anything is created', async () => {
    sim = await simulator({ sessions: 10 });
    const dir = tempDir();
    for (const db of [`sqlite:${join(dir, 'new-dir', 'x.sqlite')}`, `duckdb:${join(dir, 'new-dir', 'x.duckdb')}`]) {
      const result = await runIvsync(['sync'], {
        IVS_BASE_URL: sim.url,
        IVS_API_TOKEN: 'test-token',
        IVS_DB: db,
        IVS_CONFIG: writeConfig(dir),
      });
      expect(result.code).toBe(2);
      expect(errorMessage(result.stderr)).toBe(
        `the first sync needs --since T (or crawl.since in the config): ${db} does not exist yet, so it has no ` +
          `checkpoint to continue from`,
      );
      expect(existsSync(join(dir, 'new-dir'))).toBe(false);
    }
    expect(sim.stats.requests).toBe(0);
  });

  it('needs --since on a target with no checkpoint, and says so as a usage error', async () => {
    sim = await simulator({ sessions: 10 });
    const dir = tempDir();
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${join(dir, 'x.sqlite')}`,
      IVS_CONFIG: writeConfig(dir),
    };
    expect((await runIvsync(['migrate'], env)).code).toBe(0);
    const result = await runIvsync(['sync'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/needs --since/);
  });

  it('picks up new sessions, late uploads and finalized results, and marks sessions that went away', async () => {
    const { sim, db, env } = await backfilled();
    const nonFinal = nonFinalIds(db, 'authentications');
    expect(nonFinal.length).toBeGreaterThan(3);
    const fresh = sim.world.addSession({});
    const late = sim.world.addLateUpload({ ageSeconds: 6 * 3600 });
    sim.world.finalize(nonFinal[0]!);
    sim.world.finalize(nonFinal[1]!, 'unidentified');
    const gone = nonFinal[2]!;
    sim.world.removeAccess(gone);

    // Before any check, status counts the backfill's observation: none of them waits for its first check unseen.
    type RefreshRow = { resource: string; tier: string; sessions: number; oldestCheckAgeSeconds: number | null };
    const fresh10 = JSON.parse(
      (await runIvsync(['status', '--json'], env, undefined, () => Date.now() + 600_000)).stdout,
    ) as { refresh: RefreshRow[] };
    const unchecked = fresh10.refresh.find((r) => r.resource === 'authentications' && r.tier === 'unchecked');
    expect(unchecked?.sessions).toBe(nonFinal.length);
    expect(unchecked?.oldestCheckAgeSeconds).toBeGreaterThanOrEqual(590);
    expect(unchecked?.oldestCheckAgeSeconds).toBeLessThan(900);
    // A day and ten minutes on: every old non-final session the backfill saw is due by then (their first checks
    // are spread over the longest interval, a day, by their place in the history).
    const later = Date.now() + 86_400_000;
    const result = await runIvsync(['sync'], env, undefined, () => later + 600_000);
    expect(cliError(result.stderr)).toBeUndefined();
    expect(result.code).toBe(0);
    expectTargetEqualsTruth(db, sim);
    const ids = query<{ service_id: string }>(db, 'SELECT service_id FROM authentications').map((r) => r.service_id);
    expect(ids).toContain(fresh.serviceId);
    expect(ids).toContain(late.serviceId);
    expect(nonFinalIds(db, 'authentications')).not.toContain(nonFinal[0]);
    // Each check is kept for the sessions still not final; a final one needs none.
    expect(query(db, 'SELECT COUNT(*) AS n FROM session_refresh WHERE service_id = ?', nonFinal[0])).toEqual([
      { n: 0 },
    ]);
    const [check] = query<{ tier: string; interval_seconds: number }>(
      db,
      'SELECT tier, interval_seconds FROM session_refresh WHERE service_id = ?',
      nonFinal[3],
    );
    expect(check?.tier).toBe('backoff');
    // First seen old, by the backfill: on the longest interval from the start.
    expect(check?.interval_seconds).toBe(86_400);
    // The view and status show the tiers: old sessions on back-off, none hot, none left unchecked.
    const stillNonFinal = query<{ n: number }>(
      db,
      'SELECT COUNT(*) AS n FROM authentications WHERE result_final = 0 AND missing_since IS NULL',
    )[0]!.n;
    expect(
      query(
        db,
        'SELECT hot_sessions, backoff_sessions, unchecked_sessions, oldest_backoff_check_at IS NOT NULL AS ' +
          "checked FROM v_sync_health WHERE resource = 'authentications'",
      ),
    ).toEqual([{ hot_sessions: 0, backoff_sessions: stillNonFinal, unchecked_sessions: 0, checked: 1 }]);
    const status = JSON.parse(
      (await runIvsync(['status', '--json'], env, undefined, () => later + 900_000)).stdout,
    ) as { refresh: Array<{ resource: string; tier: string; sessions: number; oldestCheckAgeSeconds: number }> };
    expect(status.refresh.find((r) => r.resource === 'authentications')).toEqual(
      expect.objectContaining({ tier: 'backoff', sessions: stillNonFinal, oldestCheckAgeSeconds: 300 }),
    );
    // Not deleted, not kept as current: marked.
    expect(
      query(db, 'SELECT missing_since IS NOT NULL AS missing FROM authentications WHERE service_id = ?', gone),
    ).toEqual([{ missing: 1 }]);
  });

  it('marks a recent session missing once its window is paged again without it', async () => {
    const { sim, db, env } = await backfilled();
    const recent = sim.world.addSession({});
    expect((await runIvsync(['sync'], env)).code).toBe(0);
    sim.world.removeAccess(recent.serviceId);
    expect((await runIvsync(['sync'], env)).code).toBe(0);
    expect(
      query(
        db,
        'SELECT missing_since IS NOT NULL AS missing FROM authentications WHERE service_id = ?',
        recent.serviceId,
      ),
    ).toEqual([{ missing: 1 }]);
    expectTargetEqualsTruth(db, sim);
  });

  it('seals old complete windows and then costs only the overlap and the refresh', async () => {
    const { sim, db, env } = await backfilled();
    expect((await runIvsync(['sync'], env)).code).toBe(0);
    const sealed = query<{ n: number }>(db, "SELECT count(*) AS n FROM sync_windows WHERE status = 'sealed'")[0]!.n;
    expect(sealed).toBeGreaterThan(0);
    const before = sim.stats.requests;
    expect((await runIvsync(['sync', '--json'], env)).code).toBe(0);
    const spent = sim.stats.requests - before;
    // Far fewer than paging the history again (300 sessions → 12+ pages per resource and 13 windows each).
    const nonFinal = nonFinalIds(db, 'authentications').length + nonFinalIds(db, 'fingerprints').length;
    expect(spent).toBeLessThanOrEqual(nonFinal + 6);
  });

  it('pages a window reopened outside its overlap in full, and marks what it no longer returns', async () => {
    const { sim, db, env } = await backfilled();
    expect((await runIvsync(['sync'], env)).code).toBe(0);
    // A final session of the oldest sealed window: only a complete pass over it can see it gone.
    const [session] = query<{ service_id: string; created_epoch: number }>(
      db,
      `SELECT a.service_id, a.created_epoch FROM authentications a JOIN sync_windows w
         ON w.resource = 'authentications' AND a.created_epoch >= w.window_start AND a.created_epoch < w.window_end
       WHERE a.result_final = 1 AND w.status = 'sealed' ORDER BY a.created_epoch LIMIT 1`,
    );
    expect(session).toBeDefined();
    // As verify --repair reopens a window that drifted.
    const reopened = execute(
      db,
      "UPDATE sync_windows SET status = 'pending' WHERE resource = 'authentications' AND window_start <= ? AND " +
        'window_end > ?',
      session!.created_epoch,
      session!.created_epoch,
    );
    expect(reopened).toBe(1);
    sim.world.removeAccess(session!.service_id);

    expect((await runIvsync(['sync'], env)).code).toBe(0);
    expect(
      query(
        db,
        'SELECT missing_since IS NOT NULL AS missing FROM authentications WHERE service_id = ?',
        session!.service_id,
      ),
    ).toEqual([{ missing: 1 }]);
    expect(query(db, "SELECT COUNT(*) AS n FROM sync_windows WHERE status NOT IN ('done', 'sealed')")).toEqual([
      { n: 0 },
    ]);
    expectTargetEqualsTruth(db, sim);
  });
});
