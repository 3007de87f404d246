import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readSnapshot } from '../../src/http/status-snapshot.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { openSink } from '../../src/store/open-sink.js';
import type { QueryableSink } from '../../src/store/sql-sink.js';
import { runIvsync } from '../helpers/run-cli.js';
import { announcePostgres, POSTGRES_URL, postgresUp } from '../helpers/postgres.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';

announcePostgres('status read table-count tests');

const tempDir = useTempDir();
const schema = `ivs_counts_${randomBytes(5).toString('hex')}`;
let sim: RunningSimulator | undefined;
let sink: QueryableSink | undefined;
let locker: pg.Client | undefined;

beforeAll(async () => {
  if (!postgresUp) return;
  sim = await startSimulator({
    sessions: 150,
    seed: 67,
    rate: 10_000,
    burst: 10_000,
    from: HISTORY_START,
    to: HISTORY_END,
  });
  const url = new URL(POSTGRES_URL!);
  url.searchParams.set('schema', schema);
  const env = {
    IVS_BASE_URL: sim.url,
    IVS_API_TOKEN: 'test-token',
    IVS_DB: url.toString(),
    IVS_CONFIG: writeConfig(tempDir()),
  };
  const backfill = await runIvsync(['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)], env);
  expect(backfill.code, backfill.stderr).toBe(0);
  sink = await openSink(url.toString(), { readOnly: true });
  locker = new pg.Client({ connectionString: POSTGRES_URL });
  await locker.connect();
});
afterEach(async () => {
  await locker?.query('ROLLBACK');
});
afterAll(async () => {
  await sink?.close();
  await sim?.close();
  await locker?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await locker?.end();
});

/**
 * Runs `read` while another session holds session_text_fields (the largest table, which no freshness figure needs)
 * locked, and says whether the read had to wait for it: a backend waiting for a lock on that table, seen in pg_locks
 * before the read ended. The lock is then let go, so that a read that waits ends too.
 */
async function waitsForTheTable(read: () => Promise<unknown>): Promise<boolean> {
  const db = locker!;
  await db.query('BEGIN');
  await db.query(`LOCK TABLE "${schema}".session_text_fields IN ACCESS EXCLUSIVE MODE`);
  let ended = false;
  const reading = read().finally(() => {
    ended = true;
  });
  let waited = false;
  while (!ended && !waited) {
    const { rows } = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_locks WHERE relation = $1::regclass AND NOT granted`,
      [`"${schema}".session_text_fields`],
    );
    waited = Number(rows[0]!.n) > 0;
  }
  await db.query('ROLLBACK');
  await reading;
  return waited;
}

describe.skipIf(!postgresUp)('what a status read counts, on Postgres', () => {
  it('`ivsync status` counts every table, session_text_fields included', async () => {
    let tables: Record<string, number> = {};
    expect(await waitsForTheTable(async () => ({ tables } = await sink!.status()))).toBe(true);
    const [row] = await sink!.query('SELECT COUNT(*) AS n FROM session_text_fields');
    expect(tables.session_text_fields).toBe(Number(row!.n));
    expect(tables.session_text_fields).toBeGreaterThan(0);
  });

  it('the read without table counts (the daemon, after each tick) leaves that table alone, and the rest', async () => {
    const full = await sink!.status();
    let light: Awaited<ReturnType<QueryableSink['status']>> | undefined;
    expect(await waitsForTheTable(async () => (light = await sink!.status({ tables: false })))).toBe(false);
    expect(light!.tables).toEqual({});
    expect({ ...light!, tables: full.tables }).toEqual(full);
    expect(light!.nonFinal.authentications + light!.nonFinal.fingerprints).toBeGreaterThan(0);
  });

  it('the status page, polled every few seconds, reads no whole-table count', async () => {
    let scopes = 0;
    const read = async () => (scopes = (await readSnapshot(sink!, { now: Date.now })).scopes.length);
    expect(await waitsForTheTable(read)).toBe(false);
    expect(scopes).toBe(2);
  });
});
