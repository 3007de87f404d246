import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readRunDetail } from '../../src/http/run-detail.js';
import { readSnapshot } from '../../src/http/status-snapshot.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { openSink } from '../../src/store/open-sink.js';
import { runIvsync } from '../helpers/run-cli.js';
import { announcePostgres, POSTGRES_URL, postgresUp } from '../helpers/postgres.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';

announcePostgres('status page Postgres test');

const tempDir = useTempDir();
let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const TARGETS: ReadonlyArray<readonly [string, (dir: string) => string | undefined]> = [
  ['sqlite', (dir) => `sqlite:${join(dir, 'ivsync.sqlite')}`],
  ['duckdb', (dir) => `duckdb:${join(dir, 'ivsync.duckdb')}`],
  ['postgres', () => (postgresUp ? `${POSTGRES_URL}?schema=ivs_status_page_${process.pid}` : undefined)],
];

describe.each(TARGETS)('the status snapshot on %s', (_kind, targetOf) => {
  it('reads the windows, the runs and a run detail from the tables', async (ctx) => {
    const dir = tempDir();
    const target = targetOf(dir);
    if (target === undefined) return ctx.skip();
    sim = await startSimulator({
      sessions: 120,
      seed: 61,
      rate: 10_000,
      burst: 10_000,
      from: HISTORY_START,
      to: HISTORY_END,
    });
    const env = { IVS_BASE_URL: sim.url, IVS_API_TOKEN: 'test-token', IVS_DB: target, IVS_CONFIG: writeConfig(dir) };
    const backfill = await runIvsync(['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)], env);
    expect(backfill.code, backfill.stderr).toBe(0);
    const sink = await openSink(target, { readOnly: true });
    try {
      const snapshot = await readSnapshot(sink, { now: Date.now });
      const [count] = await sink.query('SELECT COUNT(*) AS n FROM sync_windows');
      expect(snapshot.scopes.reduce((sum, s) => sum + s.windows.length, 0)).toBe(Number(count!.n));
      expect(snapshot.runs.map((r) => [r.command, r.status])).toEqual([['backfill', 'succeeded']]);
      const detail = await readRunDetail(sink, snapshot.runs[0]!.id, Date.now());
      expect(detail!.windows.length).toBe(Number(count!.n));
      expect(detail!.pages).toBeGreaterThan(0);
    } finally {
      await sink.close();
      if (target.startsWith('postgres')) {
        const pg = await import('pg');
        const client = new pg.default.Client({ connectionString: POSTGRES_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS ivs_status_page_${process.pid} CASCADE`);
        await client.end();
      }
    }
  });
});
