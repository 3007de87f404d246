import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gridCells } from '../../src/crawl/engine/windows.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { cliError, runIvsync, spawnIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { expectTargetEqualsTruth, HISTORY_END, HISTORY_START, searchPagesServed } from '../helpers/truth.js';
import { whenRequests } from '../helpers/wait.js';

/*
 * How the crawler sizes its work: request streams are added (by handing over
 * windows or splitting a dense one) only while the bucket has room, and
 * adjacent windows share a stream so that they do not each end in a partial page.
 */

const tempDir = useTempDir();
const simulator = useSimulators({ seed: 7 });
const backfillArgs = ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)];

function setup(sim: RunningSimulator, rate: number, crawl: Record<string, unknown>) {
  const dir = tempDir();
  const db = join(dir, 'ivsync.sqlite');
  const config = writeConfig(dir, { crawl: { concurrency: 8, overlapSeconds: 86_400, ...crawl } });
  return {
    db,
    env: {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: config,
      IVS_RATE: String(rate),
    },
  };
}

type WindowRow = { resource: string; window_start: number; window_end: number; status: string };

describe('work sizing', () => {
  it(
    'splits a dense window while the bucket has room: ' + 'every item stored, the pieces partition the window',
    async () => {
      // One cell of 10^8 s holds the whole simulated year: 9 pages of authentications, 4 of fingerprints.
      const size = 100_000_000;
      const sim = await simulator({ sessions: 300, rate: 2000, burst: 2000 });
      const { db, env } = setup(sim, 2000, { windowSeconds: size, splitAfterPages: 2 });
      const result = await runIvsync(backfillArgs, env);
      expect(cliError(result.stderr)).toBeUndefined();
      expect(result.code).toBe(0);
      expectTargetEqualsTruth(db, sim);

      const cells = gridCells(HISTORY_START, HISTORY_END, size);
      expect(cells).toHaveLength(1);
      const rows = query<WindowRow>(
        db,
        'SELECT resource, window_start, window_end, status FROM sync_windows ORDER BY resource, window_start',
      );
      expect(rows.length).toBeGreaterThan(2 * cells.length);
      expect(rows.filter((r) => r.status !== 'done')).toEqual([]);
      for (const resource of ['authentications', 'fingerprints']) {
        const own = rows.filter((r) => r.resource === resource);
        expect(own[0]!.window_start).toBe(cells[0]![0]);
        expect(own.at(-1)!.window_end).toBe(cells[0]![1]);
        for (let i = 1; i < own.length; i++) expect(own[i]!.window_start).toBe(own[i - 1]!.window_end);
      }
    },
  );

  it(
    'adds no stream while the bucket is full: adjacent ' + 'windows share one, no window is split, no page is wasted',
    async () => {
      // A slow limit: one stream keeps the bucket busy. Thirteen 30-day windows, the oldest dense.
      const sim = await simulator({ sessions: 150, rate: 4, burst: 4 });
      for (let i = 0; i < 120; i++) sim.world.addSession({ epoch: HISTORY_START + 86_400 + i * 3_600 });
      const size = 30 * 86_400;
      const { db, env } = setup(sim, 4, { windowSeconds: size, splitAfterPages: 2 });
      const result = await runIvsync([...backfillArgs, '--resources', 'authentications'], env);
      expect(result.code).toBe(0);
      expectTargetEqualsTruth(db, sim, ['authentications']);

      const planned = gridCells(HISTORY_START, HISTORY_END, size).length;
      expect(query(db, 'SELECT count(*) AS n FROM sync_windows')).toEqual([{ n: planned }]);
      const items = sim.world.truth('test-token', 'authentications').length;
      expect(planned).toBeGreaterThan(10);
      // Every page full but the last: one stream's worth, not one partial page per window.
      expect(searchPagesServed(sim)).toBeLessThanOrEqual(Math.ceil(items / 25) + 1);
    },
  );

  it('resumes a stream killed in the middle of its windows from its cursor, over the windows below it', async () => {
    // One stream keeps this limit busy: it pages thirteen 30-day windows one after another.
    const sim = await simulator({ sessions: 400, rate: 10, burst: 10 });
    const { db, env } = setup(sim, 10, { windowSeconds: 30 * 86_400 });
    const args = [...backfillArgs, '--resources', 'authentications'];
    const child = spawnIvsync(args, env);
    await whenRequests(sim, 6, child.exited);
    child.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');
    // The cursor is kept with the window the stream was in, with the stream's whole range.
    const open = query<{ window_start: number; pass_from: number }>(
      db,
      'SELECT window_start, pass_from FROM sync_windows WHERE cursor IS NOT NULL',
    );
    expect(open.some((w) => w.pass_from < w.window_start)).toBe(true);

    const result = await runIvsync(args, env);
    expect(result.code).toBe(0);
    expectTargetEqualsTruth(db, sim, ['authentications']);
    // Both runs together: the pages that hold every item, a partial last page and one in flight per stream.
    const items = sim.world.truth('test-token', 'authentications').length;
    expect(searchPagesServed(sim)).toBeLessThanOrEqual(Math.ceil(items / 25) + 2 * open.length + 1);
  });

  describe('when the streams, not the limit, hold the rate', () => {
    // 20 requests/s at 300 ms a page take six streams in flight.
    const cappedRecords = (stderr: string) =>
      stderr
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((record) => record.type === 'streams-capped');

    it('says so once, naming the setting, and still stores every item', async () => {
      const sim = await simulator({ sessions: 500, rate: 20, burst: 20, latencyMs: 300 });
      const { db, env } = setup(sim, 20, { concurrency: 2 });
      const result = await runIvsync(backfillArgs, env);
      expect(result.code).toBe(0);
      expectTargetEqualsTruth(db, sim);
      const records = cappedRecords(result.stderr);
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ level: 'warn', account: 'default', cap: 'crawl.concurrency', streams: 2 });
      expect(records[0]!.roundTripMs).toBeGreaterThanOrEqual(300);
    });

    it('says nothing with the default bound, which leaves room for the streams the bucket needs', async () => {
      const sim = await simulator({ sessions: 500, rate: 20, burst: 20, latencyMs: 300 });
      const { db, env } = setup(sim, 20, { concurrency: undefined });
      const result = await runIvsync(backfillArgs, env);
      expect(result.code).toBe(0);
      expectTargetEqualsTruth(db, sim);
      expect(cappedRecords(result.stderr)).toEqual([]);
    });
  });
});
