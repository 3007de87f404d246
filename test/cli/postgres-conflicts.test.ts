import { describe, expect, it } from 'vitest';
import pg from 'pg';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { until } from '../helpers/wait.js';
import { useOutageScene } from '../helpers/outage-scene.js';
import { announcePostgres, POSTGRES_URL, postgresUp } from '../helpers/postgres.js';
import { cliError, spawnIvsync, type Child } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START, truthFacts } from '../helpers/truth.js';

/*
 * A deadlock (40P01) and a serialization failure (40001), provoked by a
 * second connection on the real server in the middle of a backfill's page
 * commit: the commit is run again whole and every row is stored once.
 */
announcePostgres('lock conflict tests');

const tempDir = useTempDir();
const scene = useOutageScene();
const simulator = useSimulators({ sessions: 3000, seed: 23, rate: 200, burst: 200, latencyMs: 4 });
const args = ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)];

async function connect(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  return client;
}

async function select<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = await connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } catch {
    return []; // not migrated yet
  } finally {
    await client.end();
  }
}

/** The run's id once it has committed a page. */
function committingRun(schema: string, child: Child): Promise<string> {
  return until(
    async () => {
      if (child.stderr().includes('"level":"error"')) throw new Error(child.stderr());
      const [run] = await select<{ id: string }>(`SELECT id FROM "${schema}".sync_runs WHERE items_written > 0`);
      return run?.id;
    },
    60_000,
    'a committed page',
  );
}

/** Waits until a session of ivsync waits for a lock `holder` (a backend pid) holds. */
async function blockedOn(client: pg.Client, holder: number): Promise<void> {
  const sql = 'SELECT pid FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))';
  await until(
    async () => ((await client.query(sql, [holder])).rows.length > 0 ? true : undefined),
    60_000,
    'ivsync blocked',
  );
}

/** The driver codes of the faults the run logged as retried (its JSON log lines). */
function retriedCodes(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg?: string; code?: string })
    .filter((entry) => entry.msg?.startsWith('target unavailable, retrying') === true)
    .map((entry) => String(entry.code));
}

async function expectEveryRowOnce(schema: string, sim: RunningSimulator): Promise<void> {
  let stored = 0;
  for (const resource of ['authentications', 'fingerprints'] as const) {
    const sql = `SELECT service_id FROM "${schema}".${resource} ORDER BY service_id COLLATE "C"`;
    const rows = await select<{ service_id: string }>(sql);
    expect(rows.map((r) => r.service_id)).toEqual(truthFacts(sim, resource).map((f) => f.service_id));
    stored += rows.length;
  }
  // Each session counted once: a commit run again counts nothing twice.
  const runs = await select<{ status: string; items_written: string }>(
    `SELECT status, items_written FROM "${schema}".sync_runs`,
  );
  expect(runs).toEqual([{ status: 'succeeded', items_written: String(stored) }]);
  // None set aside: a lost race is the target's passing fault, never a row's.
  expect(await select(`SELECT count(*) AS n FROM "${schema}".rejected_items`)).toEqual([{ n: '0' }]);
}

describe.skipIf(!postgresUp)('a backfill whose commits meet lock conflicts on PostgreSQL', () => {
  it('deadlock (40P01): another session holds the run row, then wants the schema lock the commit holds', async () => {
    const sim = await simulator();
    const { url, schema } = scene.schema();
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: url,
      IVS_CONFIG: writeConfig(tempDir()),
      IVS_RATE: '200',
    };
    const child = scene.track(spawnIvsync(args, env));
    const runId = await committingRun(schema, child);

    const other = await connect();
    try {
      const { rows } = await other.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await other.query('BEGIN');
      // ivsync's own server session finds the deadlock (after its 1 s) and is the one aborted.
      await other.query("SET LOCAL deadlock_timeout = '60s'");
      await other.query(`UPDATE "${schema}".sync_runs SET error = error WHERE id = $1`, [runId]);
      // The next page commit holds the schema's write lock and waits for this row.
      await blockedOn(other, rows[0]!.pid);
      await other.query('SELECT pg_advisory_xact_lock(hashtext($1))', [schema]);
      await other.query('COMMIT');
    } finally {
      await other.end();
    }

    const end = await child.exited;
    expect(cliError(end.stderr), end.stderr).toBeUndefined();
    expect(end.code).toBe(0);
    expect(retriedCodes(end.stderr)).toContain('40P01');
    await expectEveryRowOnce(schema, sim);
  }, 120_000);

  it('serialization failure (40001) at SERIALIZABLE: another session changes the run row first', async () => {
    const sim = await simulator();
    const { url, schema } = scene.schema();
    // Every transaction of ivsync's sessions at SERIALIZABLE, as a server configured so would run them.
    const serializable = new URL(url);
    serializable.searchParams.set('options', '-c default_transaction_isolation=serializable');
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: serializable.toString(),
      IVS_CONFIG: writeConfig(tempDir()),
      IVS_RATE: '200',
    };
    const child = scene.track(spawnIvsync(args, env));
    const runId = await committingRun(schema, child);

    const other = await connect();
    try {
      const { rows } = await other.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await other.query('BEGIN');
      await other.query(`UPDATE "${schema}".sync_runs SET error = error WHERE id = $1`, [runId]);
      // The next page commit's snapshot is taken while this change is uncommitted;
      // committed now, the commit's own update of the row cannot serialize.
      await blockedOn(other, rows[0]!.pid);
      await other.query('COMMIT');
    } finally {
      await other.end();
    }

    const end = await child.exited;
    expect(cliError(end.stderr), end.stderr).toBeUndefined();
    expect(end.code).toBe(0);
    expect(retriedCodes(end.stderr)).toContain('40001');
    await expectEveryRowOnce(schema, sim);
  }, 120_000);
});
