import { describe, expect, it } from 'vitest';
import { useSimulators } from '../helpers/simulators.js';
import { runIvsync } from '../helpers/run-cli.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { eachTarget } from './each-target.js';
import { readTarget } from './read-target.js';

const simulator = useSimulators({ sessions: 300, seed: 61, rate: 5000, burst: 5000, nonFinalShare: 0.2 });
const tempDir = useTempDir();
const DAY = 86_400;
const RUN_MS = 300_000;

/**
 * Ten idle syncs five minutes apart (the default schedule) on the injected
 * clock, `crawl.since` held in the config as a daemon's is. One request
 * stream per account (concurrency 1), so a run's requests depend on what it
 * pages and GETs, not on timing.
 */
async function idleRuns(url: string): Promise<number[]> {
  const now = Math.floor(Date.now() / 1000);
  const sim = await simulator({ from: now - 20 * DAY, to: now - 60 });
  const config = writeConfig(tempDir(), {
    crawl: { windowSeconds: DAY, concurrency: 1, overlapSeconds: DAY },
    refresh: { hotSeconds: 3 * DAY },
  });
  const env = { IVS_BASE_URL: sim.url, IVS_API_TOKEN: 'test-token', IVS_DB: url, IVS_CONFIG: config, IVS_RATE: '5000', IVS_SINCE: String(now - 21 * DAY) };
  let t = now * 1000;
  for (let run = 0; run <= 10; run++) {
    const result = await runIvsync(['sync'], env, undefined, () => t);
    expect(result.stderr).not.toMatch(/ivsync: /);
    expect(result.code).toBe(0);
    t += RUN_MS;
  }
  const runs = await readTarget(url, "SELECT requests FROM sync_runs WHERE command = 'sync' ORDER BY started_at");
  return runs.slice(1).map((r) => Number(r.requests));
}

eachTarget((dialect, target) => {
  // SQLite and PostgreSQL: DuckDB's writes are the slow part of this and say nothing more here.
  describe.skipIf(dialect === 'duckdb')('idle sync', () => {
    it('never costs more than the second idle run, and the back-off makes later ones cheaper', async () => {
      const idle = await idleRuns(target().url);
      expect(idle).toHaveLength(10);
      const dearer = idle.map((requests, i) => ({ run: i + 1, requests })).filter((r, i) => i >= 2 && r.requests > idle[1]!);
      expect(dearer, `requests per idle run: ${idle.join(', ')}`).toEqual([]);
      // Sessions older than the hot tier rest on their back-off: some later run spends less.
      expect(Math.min(...idle.slice(2))).toBeLessThan(idle[1]!);
    });
  });
});
