import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { clusterPossible, startPgCluster, type PgCluster } from '../helpers/pg-cluster.js';
import { announcePostgres, POSTGRES_URL, postgresUp } from '../helpers/postgres.js';
import { cliError, errorMessage, spawnIvsync, type Child } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START, truthFacts } from '../helpers/truth.js';
import { afterRequests, until } from '../helpers/wait.js';

announcePostgres('database restart tests');

const tempDir = useTempDir();
const simulator = useSimulators({ sessions: 1500, seed: 19, rate: 400, burst: 400, latencyMs: 4 });
const args = ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)];
let cluster: PgCluster | undefined;
let proxy: TcpProxy | undefined;
const schemas: string[] = [];
const children: Child[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await proxy?.close();
  proxy = undefined;
  await cluster?.close();
  cluster = undefined;
  if (postgresUp) {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    for (const s of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    await client.end();
  }
});

/** Runs `sql` on the target `url` (a plain pg client: the target as an analyst sees it). */
async function select<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The target holds exactly the simulator's sessions, once each. */
async function expectTruth(url: string, schema: string, sim: RunningSimulator): Promise<void> {
  for (const resource of ['authentications', 'fingerprints'] as const) {
    const sql = `SELECT service_id FROM "${schema}".${resource} WHERE missing_since IS NULL
                 ORDER BY service_id COLLATE "C"`;
    const stored = await select<{ service_id: string }>(url, sql);
    expect(stored.map((r) => r.service_id)).toEqual(truthFacts(sim, resource).map((f) => f.service_id));
  }
}

function envFor(sim: RunningSimulator, db: string, config: Record<string, unknown> = {}): Record<string, string> {
  const dir = tempDir();
  const IVS_CONFIG = writeConfig(dir, config);
  return { IVS_BASE_URL: sim.url, IVS_API_TOKEN: 'test-token', IVS_DB: db, IVS_CONFIG, IVS_RATE: '400' };
}

function inSchema(base: string, port?: number): { url: string; schema: string } {
  const schema = `ivs_test_${randomBytes(6).toString('hex')}`;
  schemas.push(schema);
  const url = new URL(base);
  if (port !== undefined) url.port = String(port);
  url.searchParams.set('schema', schema);
  return { url: url.toString(), schema };
}

describe.skipIf(!clusterPossible)('a backfill while its PostgreSQL restarts', () => {
  it('rides the restart out (sessions terminated, refused, starting up) and stores every session once', async () => {
    const sim = await simulator();
    cluster = await startPgCluster();
    const { url, schema } = inSchema(cluster.url);
    const child = spawnIvsync(args, envFor(sim, url));
    children.push(child);
    // Mid-run: some pages are committed, most are still to come.
    await afterRequests(sim, 15, child.exited);
    await cluster.restart();
    const end = await child.exited;
    expect(cliError(end.stderr), end.stderr).toBeUndefined();
    expect(end.code).toBe(0);
    // The retries were needed: the process met the restart.
    expect(end.stderr).toMatch(/target unavailable, retrying/);
    await expectTruth(cluster.url, schema, sim);
    // Every session written once: the retried transactions count nothing twice.
    const runs = await select<{ status: string; items_written: string }>(
      cluster.url,
      `SELECT status, items_written FROM "${schema}".sync_runs`,
    );
    const [count] = await select<{ n: string }>(
      cluster.url,
      `SELECT (SELECT count(*) FROM "${schema}".authentications) +
              (SELECT count(*) FROM "${schema}".fingerprints) AS n`,
    );
    expect(runs).toEqual([{ status: 'succeeded', items_written: count!.n }]);
  }, 120_000);
});

describe.skipIf(!postgresUp)('a backfill while the connection to its PostgreSQL is cut', () => {
  it('waits for the database within store.retrySeconds and completes', async () => {
    const sim = await simulator();
    const target = new URL(POSTGRES_URL!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const { url, schema } = inSchema(POSTGRES_URL!, proxy.port);
    const child = spawnIvsync(args, envFor(sim, url, { store: { retrySeconds: 120 } }));
    children.push(child);
    await afterRequests(sim, 15, child.exited);
    await proxy.cut();
    // Down until the process has been refused and retried a few times.
    const retries = () => (child.stderr().match(/target unavailable, retrying/g) ?? []).length;
    await until(() => (retries() >= 3 ? true : undefined), 60_000, 'three retries');
    await proxy.restore();
    const end = await child.exited;
    expect(cliError(end.stderr), end.stderr).toBeUndefined();
    expect(end.code).toBe(0);
    await expectTruth(POSTGRES_URL!, schema, sim);
  }, 120_000);

  it('fails with one line naming the cause and saying that re-running resumes; re-running resumes', async () => {
    const sim = await simulator();
    const target = new URL(POSTGRES_URL!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const { url, schema } = inSchema(POSTGRES_URL!, proxy.port);
    const env = envFor(sim, url, { store: { retrySeconds: 1 } });
    const child = spawnIvsync(args, env);
    children.push(child);
    await afterRequests(sim, 15, child.exited);
    await proxy.cut();
    const end = await child.exited;
    expect(end.code).toBe(1);
    const line = errorMessage(end.stderr);
    expect(line).toMatch(/ECONNREFUSED|ECONNRESET|Connection terminated/);
    expect(line).toMatch(/run the same command again/);
    expect(line).not.toMatch(/\n/);

    await proxy.restore();
    const again = await spawnIvsync(args, env).exited;
    expect(cliError(again.stderr), again.stderr).toBeUndefined();
    expect(again.code).toBe(0);
    await expectTruth(POSTGRES_URL!, schema, sim);
  }, 120_000);
});
