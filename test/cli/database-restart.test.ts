import { describe, expect, it } from 'vitest';
import pg from 'pg';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { useOutageScene } from '../helpers/outage-scene.js';
import { clusterPossible } from '../helpers/pg-cluster.js';
import { announcePostgres, POSTGRES_URL, postgresUp } from '../helpers/postgres.js';
import { cliError, errorMessage, spawnIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START, truthFacts } from '../helpers/truth.js';
import { afterRequests, until } from '../helpers/wait.js';

announcePostgres('database restart tests');

const tempDir = useTempDir();
const simulator = useSimulators({ sessions: 1500, seed: 19, rate: 400, burst: 400, latencyMs: 4 });
const args = ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)];
const scene = useOutageScene();

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

describe.skipIf(!clusterPossible)('a backfill while its PostgreSQL restarts', () => {
  it('rides the restart out (sessions terminated, refused, starting up) and stores every session once', async () => {
    const sim = await simulator();
    const cluster = await scene.cluster();
    const { url, schema } = scene.schema(cluster.url);
    const child = scene.track(spawnIvsync(args, envFor(sim, url)));
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
    const proxy = await scene.proxy();
    const { url, schema } = scene.schema(POSTGRES_URL, proxy.port);
    const child = scene.track(spawnIvsync(args, envFor(sim, url, { store: { retrySeconds: 120 } })));
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
    const proxy = await scene.proxy();
    const { url, schema } = scene.schema(POSTGRES_URL, proxy.port);
    const env = envFor(sim, url, { store: { retrySeconds: 1 } });
    const child = scene.track(spawnIvsync(args, env));
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

  it('stops at once on SIGINT during the outage, exit 3, every committed page kept; re-running resumes', async () => {
    const sim = await simulator();
    const proxy = await scene.proxy();
    const { url, schema } = scene.schema(POSTGRES_URL, proxy.port);
    // A budget the test never waits out: without an abortable pause the run would end failed (exit 1) after it.
    const env = envFor(sim, url, { store: { retrySeconds: 60 } });
    const child = scene.track(spawnIvsync(args, env));
    await afterRequests(sim, 15, child.exited);
    await proxy.cut();
    // In a pause between retries.
    await until(() => (/target unavailable, retrying/.test(child.stderr()) ? true : undefined), 30_000, 'a retry');
    child.kill('SIGINT');
    const end = await child.exited;
    expect(end.code, end.stderr).toBe(3);
    expect(cliError(end.stderr)?.code).toBe('INTERRUPTED');
    expect(errorMessage(end.stderr)).toMatch(/run the same command again/);

    // Nothing half-written: the sessions stored are those of the pages the run committed, counted with each commit.
    const [stopped] = await select<{ status: string; items_written: string; sessions: string }>(
      POSTGRES_URL!,
      `SELECT status, items_written,
              (SELECT count(*) FROM "${schema}".authentications) +
              (SELECT count(*) FROM "${schema}".fingerprints) AS sessions
       FROM "${schema}".sync_runs`,
    );
    expect(Number(stopped!.sessions)).toBeGreaterThan(0);
    expect(stopped!.items_written).toBe(stopped!.sessions);

    await proxy.restore();
    const again = await spawnIvsync(args, env).exited;
    expect(cliError(again.stderr), again.stderr).toBeUndefined();
    expect(again.code).toBe(0);
    await expectTruth(POSTGRES_URL!, schema, sim);
    const sql = `SELECT status FROM "${schema}".sync_runs ORDER BY started_at`;
    const runs = await select<{ status: string }>(POSTGRES_URL!, sql);
    // The stopped run's end could not reach the database; the next run finds its process gone.
    expect(runs.map((r) => r.status)).toEqual(['abandoned', 'succeeded']);
  }, 120_000);
});
