import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { cliError, runIvsync, spawnIvsync } from '../helpers/run-cli.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_START } from '../helpers/truth.js';
import { useSimulators } from '../helpers/simulators.js';
import { whenRequests } from '../helpers/wait.js';

const tempDir = useTempDir();
let sim: RunningSimulator | undefined;
const simulator = useSimulators({});

describe('run history tells the truth', () => {
  it(
    'a run whose process was killed shows as abandoned, in status at once and in sync_runs once its lease is ' +
      'taken over',
    async () => {
      // Slow enough that the sync is still paging when it is killed.
      sim = await simulator({ sessions: 400, seed: 51, rate: 5, burst: 5 });
      const dir = tempDir();
      const db = join(dir, 'ivsync.sqlite');
      const env = {
        IVS_BASE_URL: sim.url,
        IVS_API_TOKEN: 'test-token',
        IVS_DB: `sqlite:${db}`,
        IVS_CONFIG: writeConfig(dir, { crawl: { concurrency: 2 } }),
        IVS_RATE: '5',
      };
      const killed = spawnIvsync(['sync', '--since', String(HISTORY_START)], env);
      await whenRequests(sim, 5, killed.exited);
      killed.kill('SIGKILL');
      await killed.exited;
      expect(query(db, 'SELECT status FROM sync_runs')).toEqual([{ status: 'running' }]);

      const status = await runIvsync(['status', '--json'], env);
      expect(status.code).toBe(0);
      const shown = (JSON.parse(status.stdout) as { lastRuns: Array<{ status: string; error: string }> }).lastRuns;
      expect(shown).toEqual([
        expect.objectContaining({ status: 'abandoned', error: expect.stringMatching(/process is gone/) }),
      ]);

      const next = await runIvsync(['sync', '--json'], env);
      expect(cliError(next.stderr)).toBeUndefined();
      expect(next.code).toBe(0);
      const runs = query<{ status: string; error: string | null; finished_at: string | null }>(
        db,
        'SELECT status, error, finished_at FROM sync_runs ORDER BY started_at',
      );
      expect(runs.map((r) => r.status)).toEqual(['abandoned', 'succeeded']);
      expect(runs[0]!.error).toMatch(/^abandoned: its process is gone from this host .*; taken over by /);
      expect(runs[0]!.finished_at).not.toBeNull();
    },
  );

  it('an idle sync reports nothing new or changed, and records so', async () => {
    // A history that reaches now, so the incremental pass pages sessions again.
    const now = Math.floor(Date.now() / 1000);
    sim = await simulator({
      sessions: 200,
      seed: 52,
      rate: 1000,
      burst: 1000,
      nonFinalShare: 0.2,
      from: now - 2 * 86_400,
      to: now - 60,
    });
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: writeConfig(dir),
      IVS_RATE: '1000',
    };
    const first = await runIvsync(['sync', '--since', String(now - 3 * 86_400), '--json'], env);
    expect(first.code).toBe(0);
    const idle = await runIvsync(['sync', '--json'], env);
    expect(idle.code).toBe(0);
    const report = JSON.parse(idle.stdout) as {
      itemsWritten: number;
      outcomes: Array<{ items: number; written: number }>;
    };
    expect(report.outcomes.reduce((n, o) => n + o.items, 0)).toBeGreaterThan(0);
    expect(report.outcomes.map((o) => o.written)).toEqual([0, 0]);
    expect(report.itemsWritten).toBe(0);
    expect(query(db, 'SELECT items_written FROM sync_runs ORDER BY started_at')).toEqual([
      { items_written: 200 },
      { items_written: 0 },
    ]);
  });
});
