import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRandom, type RunningSimulator } from '../../src/simulator/index.js';
import { committedPages, pageKey, readCheckpoints } from '../helpers/committed-pages.js';
import { cliError, spawnIvsync } from '../helpers/run-cli.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { expectTargetEqualsTruth, HISTORY_END, HISTORY_START, searchPagesServed } from '../helpers/truth.js';
import { useSimulators } from '../helpers/simulators.js';
import { afterRequests, whenRequests } from '../helpers/wait.js';

const tempDir = useTempDir();
let sim: RunningSimulator | undefined;
const simulator = useSimulators({});

const args = ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)];

describe('a backfill killed at any instant', () => {
  it(
    'a storm of 20 SIGKILLs at random moments, with faults on: loses nothing, duplicates nothing, never fetches ' +
      'a committed page again',
    async () => {
      sim = await simulator({
        sessions: 4000,
        seed: 5,
        rate: 5000,
        burst: 5000,
        faults: '500=0.05,reset=0.02,truncate=0.02',
        recordServedPages: true,
      });
      const dir = tempDir();
      const db = join(dir, 'ivsync.sqlite');
      const env = {
        IVS_BASE_URL: sim.url,
        IVS_API_TOKEN: 'test-token',
        IVS_DB: `sqlite:${db}`,
        IVS_CONFIG: writeConfig(dir, { crawl: { windowSeconds: 7 * 86_400, concurrency: 4 } }),
        IVS_RATE: '5000',
      };
      // The kill moments: a seeded draw of how many more requests the simulator sees before each kill.
      const random = createRandom(20_261_123);
      const kills: Array<{ servedBefore: number; committed: Set<string> }> = [];
      while (kills.length < 20) {
        const child = spawnIvsync(args, env);
        await whenRequests(sim, random.int(4, 14), child.exited);
        child.kill('SIGKILL');
        const end = await child.exited;
        expect(end.signal, `run ${kills.length + 1} ended before its kill: ${end.stderr}`).toBe('SIGKILL');
        const served = sim.servedPages.slice();
        kills.push({ servedBefore: served.length, committed: committedPages(served, readCheckpoints(db)) });
      }
      const final = await spawnIvsync(args, env).exited;
      expect(cliError(final.stderr)).toBeUndefined();
      expect(final.code).toBe(0);
      expectTargetEqualsTruth(db, sim);
      expect(
        sim.stats.faultsInjected['500'] + sim.stats.faultsInjected.reset + sim.stats.faultsInjected.truncate,
      ).toBeGreaterThan(5);

      // A page committed before a kill is never asked for again after it; pages in flight at a kill may be.
      const refetched: string[] = [];
      for (const [k, kill] of kills.entries()) {
        for (const page of sim.servedPages.slice(kill.servedBefore)) {
          if (kill.committed.has(pageKey(page))) refetched.push(`after kill ${k + 1}: ${pageKey(page)}`);
        }
      }
      expect(refetched).toEqual([]);
      // The check had pages to look at: most were committed by the time of the last kill.
      expect(kills[kills.length - 1]!.committed.size).toBeGreaterThan(50);
      const pages = query<{ n: number }>(db, 'SELECT sum(pages) AS n FROM sync_windows')[0]!.n;
      expect(searchPagesServed(sim)).toBeLessThanOrEqual(pages + kills.length * 4);
      // A hang guard: 21 starts of the CLI take about a second of CPU each.
    },
    180_000,
  );

  it('stops on SIGTERM after committing the pages in flight, says how to resume, and resumes', async () => {
    sim = await simulator({ sessions: 400, seed: 6, rate: 200, burst: 200, latencyMs: 5 });
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: writeConfig(dir),
      IVS_RATE: '200',
    };
    const child = spawnIvsync(args, env);
    await afterRequests(sim, 10, child.exited);
    child.kill('SIGTERM');
    const end = await child.exited;
    expect(end.code).toBe(3);
    expect(end.stderr).toMatch(/run the same command again to resume/);
    expect(query(db, 'SELECT status FROM sync_runs')).toEqual([{ status: 'interrupted' }]);
    const again = await spawnIvsync(args, env).exited;
    expect(again.code).toBe(0);
    expectTargetEqualsTruth(db, sim);
  });
});
