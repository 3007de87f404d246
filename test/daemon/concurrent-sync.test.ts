import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { errorMessage, spawnIvsync } from '../helpers/run-cli.js';
import { execute, query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { expectTargetEqualsTruth, HISTORY_START } from '../helpers/truth.js';
import { useSimulators } from '../helpers/simulators.js';
import { until, whenRequests } from '../helpers/wait.js';

const tempDir = useTempDir();
let sim: RunningSimulator | undefined;
const simulator = useSimulators({});

async function setup() {
  // Slow enough that the first sync is still paging when the second starts: about 20 pages
  // (the crawl spends no partial page per window), at 5 a second.
  sim = await simulator({ sessions: 500, seed: 21, rate: 5, burst: 5, latencyMs: [20, 40] });
  const dir = tempDir();
  const db = join(dir, 'ivsync.sqlite');
  const env = {
    IVS_BASE_URL: sim.url,
    IVS_API_TOKEN: 'test-token',
    IVS_DB: `sqlite:${db}`,
    IVS_CONFIG: writeConfig(dir, { crawl: { windowSeconds: 30 * 86_400, concurrency: 2, overlapSeconds: 86_400 } }),
    IVS_RATE: '5',
  };
  return { sim, db, env };
}

const sync = ['sync', '--since', String(HISTORY_START)];

/**
 * Holds the first process's requests at the simulator while `second` runs, so
 * the first still holds its lease however slowly the second starts.
 */
async function whileSlow<T>(sim: RunningSimulator, second: Promise<T>): Promise<T> {
  sim.setLatency(3_000);
  try {
    return await second;
  } finally {
    sim.setLatency([20, 40]);
  }
}

describe('two sync processes on one target', () => {
  it('the second refuses, names the holder and exits non-zero; the first completes the truth', async () => {
    const { sim, db, env } = await setup();
    const first = spawnIvsync(sync, env);
    await whenRequests(sim, 5, first.exited);
    const second = await whileSlow(sim, spawnIvsync(sync, env).exited);
    expect(second.code).toBe(1);
    expect(errorMessage(second.stderr)).toMatch(
      /^account:default is held by [^:\s]+:\d+:[0-9a-f]{8} since \d{4}-\d\d-\d\dT/,
    );
    expect(second.stderr).toMatch(/--wait/);
    const done = await first.exited;
    expect(done.code).toBe(0);
    expectTargetEqualsTruth(db, sim);
    // The refused process recorded no run and left no lease behind.
    expect(query(db, 'SELECT command, account, status FROM sync_runs')).toEqual([
      { command: 'sync', account: 'default', status: 'succeeded' },
    ]);
    expect(query(db, 'SELECT * FROM sync_leases')).toEqual([]);
  });

  it('with --wait the second waits for the first, then syncs', async () => {
    const { sim, db, env } = await setup();
    const first = spawnIvsync(sync, env);
    await whenRequests(sim, 5, first.exited);
    // The first is held at the simulator until the second has found its lease and waits.
    sim.setLatency(3_000);
    const second = spawnIvsync([...sync, '--wait'], env);
    await until(() => (/waiting for the lease/.test(second.stderr()) ? true : undefined), 30_000, 'the second to wait');
    sim.setLatency([20, 40]);
    const [a, b] = await Promise.all([first.exited, second.exited]);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    expect(b.stderr).toMatch(/waiting for the lease/);
    const runs = query<{ started_at: string; finished_at: string }>(
      db,
      'SELECT started_at, finished_at FROM sync_runs ORDER BY started_at',
    );
    expect(runs).toHaveLength(2);
    // One after the other, never both at once.
    expect(runs[1]!.started_at >= runs[0]!.finished_at).toBe(true);
    expectTargetEqualsTruth(db, sim);
  });

  it('a backfill and a sync of the same account exclude each other too', async () => {
    const { sim, env } = await setup();
    const first = spawnIvsync(
      ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_START + 300 * 86_400)],
      env,
    );
    await whenRequests(sim, 5, first.exited);
    const second = await whileSlow(sim, spawnIvsync(sync, env).exited);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/held by/);
    expect((await first.exited).code).toBe(0);
  });

  it('a sync whose lease another process takes over stops, names the new holder, and loses nothing', async () => {
    const { sim, db, env } = await setup();
    const first = spawnIvsync([...sync, '--lease-ttl', '3'], env);
    await whenRequests(sim, 5, first.exited);
    // Another process takes the lease over, as one would once this one's heartbeats stopped for a ttl.
    const other = 'elsewhere:1:0000beef';
    expect(
      execute(
        db,
        "UPDATE sync_leases SET holder = ?, heartbeat_at = '2100-01-01T00:00:00.000000Z' WHERE name = " +
          "'account:default'",
        other,
      ),
    ).toBe(1);
    const end = await first.exited;
    expect(end.code).toBe(1);
    expect(errorMessage(end.stderr)).toContain(`account:default was taken over by ${other}: `);
    expect(query(db, 'SELECT status, error FROM sync_runs')).toEqual([
      { status: 'failed', error: expect.stringMatching(/^account:default was taken over by elsewhere:1:0000beef: /) },
    ]);
    // The new holder's lease is left alone.
    expect(query(db, 'SELECT name, holder FROM sync_leases')).toEqual([{ name: 'account:default', holder: other }]);
    // Once it is given back, the next sync completes the truth from what the stopped one committed.
    execute(db, 'DELETE FROM sync_leases');
    expect((await spawnIvsync(sync, env).exited).code).toBe(0);
    expectTargetEqualsTruth(db, sim);
  });
});
