import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { spawnIvsync } from '../helpers/run-cli.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { expectTargetEqualsTruth, HISTORY_END, HISTORY_START, searchPagesServed } from '../helpers/truth.js';

const tempDir = useTempDir();
let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** Resolves once the simulator has received `n` requests or `done` settled (polls its counter; no fixed sleeps). */
async function afterRequests(s: RunningSimulator, n: number, done?: Promise<unknown>): Promise<void> {
  let finished = false;
  void done?.then(() => (finished = true));
  while (s.stats.requests < n && !finished) await new Promise((r) => setTimeout(r, 2));
}

const args = ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)];

describe('a backfill killed at any instant', () => {
  it('resumes from its checkpoints after SIGKILL: loses nothing, duplicates nothing, re-fetches little', async () => {
    sim = await startSimulator({ sessions: 1500, seed: 5, rate: 400, burst: 400, latencyMs: [2, 15] });
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const env = { IVS_BASE_URL: sim.url, IVS_API_TOKEN: 'test-token', IVS_DB: `sqlite:${db}`, IVS_CONFIG: writeConfig(dir, { crawl: { windowSeconds: 30 * 86_400, concurrency: 6 } }), IVS_RATE: '400' };

    let kills = 0;
    for (const at of [3, 11, 7, 13]) {
      const child = spawnIvsync(args, env);
      await afterRequests(sim, sim.stats.requests + at, child.exited);
      child.kill('SIGKILL');
      const end = await child.exited;
      if (end.signal === 'SIGKILL') kills++;
    }
    expect(kills).toBeGreaterThan(0);
    const final = await spawnIvsync(args, env).exited;
    expect(final.stderr).not.toMatch(/ivsync: /);
    expect(final.code).toBe(0);
    expectTargetEqualsTruth(db, sim);
    // Each kill costs at most the pages in flight (6 workers); nothing is fetched a second time otherwise.
    const pages = query<{ n: number }>(db, 'SELECT sum(pages) AS n FROM sync_windows')[0]!.n;
    expect(searchPagesServed(sim)).toBeLessThanOrEqual(pages + kills * 6);
  });

  it('stops on SIGTERM after committing the pages in flight, says how to resume, and resumes', async () => {
    sim = await startSimulator({ sessions: 400, seed: 6, rate: 200, burst: 200, latencyMs: 5 });
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const env = { IVS_BASE_URL: sim.url, IVS_API_TOKEN: 'test-token', IVS_DB: `sqlite:${db}`, IVS_CONFIG: writeConfig(dir), IVS_RATE: '200' };
    const child = spawnIvsync(args, env);
    await afterRequests(sim, 10, child.exited);
    child.kill('SIGTERM');
    const end = await child.exited;
    expect(end.code).toBe(3);
    expect(end.stderr).toMatch(/run the same command again to resume/);
    expect(query(db, "SELECT status FROM sync_runs")).toEqual([{ status: 'interrupted' }]);
    const again = await spawnIvsync(args, env).exited;
    expect(again.code).toBe(0);
    expectTargetEqualsTruth(db, sim);
  });
});
