import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliError, runIvsync, spawnIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';
import { afterRequests, until } from '../helpers/wait.js';

const tempDir = useTempDir();
const simulator = useSimulators({ sessions: 1200, seed: 23, rate: 300, burst: 300, latencyMs: 3 });
const args = ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)];

function sessionsStored(db: string): number {
  const sql = 'SELECT (SELECT count(*) FROM authentications) + (SELECT count(*) FROM fingerprints) AS n';
  return query<{ n: number }>(db, sql)[0]!.n;
}

function envFor(url: string, dir: string, db: string): Record<string, string> {
  const IVS_DB = `sqlite:${db}`;
  return { IVS_BASE_URL: url, IVS_API_TOKEN: 'test-token', IVS_DB, IVS_CONFIG: writeConfig(dir), IVS_RATE: '300' };
}

interface StatusJson {
  tables: Record<string, number>;
  lastRuns: Array<{ id: string; status: string; requests: number; itemsWritten: number }>;
}

describe('the records of a run', () => {
  it('a run that dies keeps the counts of what it committed: requests, and sessions written as stored', async () => {
    const sim = await simulator();
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const env = envFor(sim.url, dir, db);
    const child = spawnIvsync(args, env);
    await afterRequests(sim, 10, child.exited);
    // Killed once some pages are committed.
    const paged = () => query<{ n: number }>(db, 'SELECT count(*) AS n FROM sync_windows WHERE pages > 0')[0]!.n;
    await until(() => (paged() > 0 ? true : undefined), 30_000, 'a committed page');
    child.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');

    const stored = sessionsStored(db);
    const committedPages = query<{ n: number }>(db, 'SELECT sum(pages) AS n FROM sync_windows')[0]!.n;
    expect(stored).toBeGreaterThan(0);
    const status = await runIvsync(['status', '--json'], env);
    expect(status.code).toBe(0);
    const [run] = (JSON.parse(status.stdout) as StatusJson).lastRuns;
    expect(run!.status).toBe('abandoned');
    expect(run!.itemsWritten).toBe(stored);
    expect(run!.requests).toBeGreaterThanOrEqual(committedPages);
    // The row itself holds them: whoever relabels it keeps them.
    const row = query(db, 'SELECT items_written, requests >= ? AS counted FROM sync_runs', committedPages);
    expect(row).toEqual([{ items_written: stored, counted: 1 }]);
  }, 60_000);

  it('each figure says what it counts, and they agree with the tables: items fetched, sessions written', async () => {
    const sim = await simulator({ sessions: 600 });
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const env = envFor(sim.url, dir, db);
    const text = await runIvsync(args, env);
    expect(cliError(text.stderr)).toBeUndefined();
    const stored = sessionsStored(db);
    const rejected = query<{ n: number }>(db, 'SELECT count(*) AS n FROM rejected_items')[0]!.n;
    const summary = /backfill complete: (\d+) items fetched in \d+ pages, (\d+) sessions new or changed, \d+ requests/;
    const line = summary.exec(text.stdout);
    expect(line, text.stdout).not.toBeNull();
    const [fetched, written] = [Number(line![1]), Number(line![2])];
    // Into an empty target every session written is a row stored; what was fetched holds them,
    // the rejected items, and any item seen twice.
    expect(written).toBe(stored);
    expect(fetched).toBeGreaterThanOrEqual(stored + rejected);

    const status = JSON.parse((await runIvsync(['status', '--json'], env)).stdout) as StatusJson;
    expect(status.tables.authentications! + status.tables.fingerprints!).toBe(stored);
    expect(status.lastRuns[0]!.itemsWritten).toBe(stored);
    const plain = (await runIvsync(['status'], env)).stdout;
    expect(plain).toMatch(/sessions written/);
    expect(plain).toMatch(/items fetched last pass/);
  }, 60_000);
});
