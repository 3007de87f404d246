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
async function idleRuns(url: string): Promise<{ idle: number[]; checkedLast: number; nonFinal: number }> {
  const now = Math.floor(Date.now() / 1000);
  const sim = await simulator({ from: now - 20 * DAY, to: now - 60 });
  const config = writeConfig(tempDir(), {
    crawl: { windowSeconds: DAY, concurrency: 1, overlapSeconds: DAY },
    refresh: { hotSeconds: 3 * DAY },
  });
  const env = {
    IVS_BASE_URL: sim.url,
    IVS_API_TOKEN: 'test-token',
    IVS_DB: url,
    IVS_CONFIG: config,
    IVS_RATE: '5000',
    IVS_SINCE: String(now - 21 * DAY),
  };
  let t = now * 1000;
  for (let run = 0; run <= 10; run++) {
    const result = await runIvsync(['sync'], env, undefined, () => t);
    expect(result.stderr).not.toMatch(/ivsync: /);
    expect(result.code, result.stderr.slice(-600)).toBe(0);
    t += RUN_MS;
  }
  const runs = await readTarget(url, "SELECT requests FROM sync_runs WHERE command = 'sync' ORDER BY started_at");
  const count = async (sql: string) => Number((await readTarget(url, sql))[0]!.n);
  return {
    idle: runs.slice(1).map((r) => Number(r.requests)),
    // Every row of session_refresh the last run wrote carries its time, the latest of all.
    checkedLast: await count(
      'SELECT COUNT(*) AS n FROM session_refresh WHERE checked_at = (SELECT MAX(checked_at) FROM session_refresh)',
    ),
    nonFinal: await count(
      'SELECT (SELECT COUNT(*) FROM authentications WHERE NOT result_final) + (SELECT COUNT(*) FROM ' +
        'fingerprints WHERE NOT result_final) AS n',
    ),
  };
}

eachTarget((dialect, target) => {
  // SQLite and PostgreSQL: DuckDB's writes are the slow part of this and say nothing more here.
  describe.skipIf(dialect === 'duckdb')('idle sync', () => {
    it(
      'never costs more than the second idle run, and checks ' + 'every non-final session every run when that fits',
      async () => {
        const { idle, checkedLast, nonFinal } = await idleRuns(target().url);
        expect(idle).toHaveLength(10);
        const dearer = idle
          .map((requests, i) => ({ run: i + 1, requests }))
          .filter((r, i) => i >= 2 && r.requests > idle[1]!);
        expect(dearer, `requests per idle run: ${idle.join(', ')}`).toEqual([]);
        // Checking them all costs far less than the budget (a tenth of 5,000 requests/s over five minutes): the
        // last run checked every one, the old sessions a backfill-like first sync stored as well as the young.
        expect(nonFinal).toBeGreaterThan(20);
        expect(checkedLast, `${checkedLast} of ${nonFinal} non-final sessions checked by the last run`).toBe(nonFinal);
      },
    );
  });
});
