import { describe, expect, it } from 'vitest';
import pg from 'pg';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { useOutageScene } from '../helpers/outage-scene.js';
import { announcePostgres, POSTGRES_URL, postgresUp } from '../helpers/postgres.js';
import { spawnIvsync, type Child } from '../helpers/run-cli.js';
import { servedUrl } from '../helpers/served-url.js';
import { useSimulators } from '../helpers/simulators.js';
import type { TcpProxy } from '../helpers/tcp-proxy.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START, truthFacts } from '../helpers/truth.js';
import { until } from '../helpers/wait.js';

announcePostgres('background backfill tests');

const tempDir = useTempDir();
const simulator = useSimulators({
  sessions: 1500,
  seed: 31,
  rate: 400,
  burst: 400,
  latencyMs: 5,
  recordServedPages: true,
});
const scene = useOutageScene();

/** Runs `sql` straight on the shared server (never through the proxy a test cuts). */
async function select<T>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } catch {
    return []; // not migrated yet
  } finally {
    await client.end();
  }
}

const CRAWL = { windowSeconds: 14 * 86_400, concurrency: 4, overlapSeconds: 60 };

interface Setup {
  sim: RunningSimulator;
  schema: string;
  child: Child;
  proxy: TcpProxy;
}

async function startDaemon(config: Record<string, unknown> = {}): Promise<Setup> {
  const sim = await simulator();
  const proxy = await scene.proxy();
  const { url, schema } = scene.schema(POSTGRES_URL, proxy.port);
  const dir = tempDir();
  const now = Math.floor(Date.now() / 1000);
  const env = {
    IVS_BASE_URL: sim.url,
    IVS_API_TOKEN: 'test-token',
    IVS_DB: url,
    // The passes' fetching is what is counted: the refresh, which re-checks every non-final session each run
    // when that fits its budget, is given none (a share of the token too small for one request).
    IVS_CONFIG: writeConfig(dir, { crawl: CRAWL, refresh: { budgetShare: 0.000001 }, ...config }),
    IVS_RATE: '400',
  };
  // The scheduled syncs start a day back (nothing there: the history ended before); the backfill covers the history.
  const args = ['daemon', '--schedule', '* * * * * *', '--since', String(now - 86_400)];
  args.push('--backfill-from', String(HISTORY_START), '--port', '0');
  const child = scene.track(spawnIvsync(args, env));
  await servedUrl(child);
  return { sim, schema, child, proxy };
}

/** The background backfill succeeded and every window of the history is paged (by it or by a sync). */
async function historyComplete(schema: string): Promise<true | undefined> {
  const [row] = await select<{ backfills: string; open: string }>(
    `SELECT (SELECT count(*) FROM "${schema}".sync_runs
             WHERE command = 'backfill' AND status = 'succeeded') AS backfills,
            (SELECT count(*) FROM "${schema}".sync_windows
             WHERE status NOT IN ('done', 'sealed') AND window_end <= ${HISTORY_END}) AS open`,
  );
  return row !== undefined && Number(row.backfills) > 0 && Number(row.open) === 0 ? true : undefined;
}

async function expectTruth(schema: string, sim: RunningSimulator): Promise<void> {
  for (const resource of ['authentications', 'fingerprints'] as const) {
    const sql = `SELECT service_id FROM "${schema}".${resource} ORDER BY service_id COLLATE "C"`;
    const stored = await select<{ service_id: string }>(sql);
    expect(stored.map((r) => r.service_id)).toEqual(truthFacts(sim, resource).map((f) => f.service_id));
  }
}

const itemsFetched = (sim: RunningSimulator) => sim.servedPages.reduce((n, p) => n + p.items, 0);

describe.skipIf(!postgresUp)('a daemon with a background backfill', () => {
  it('fetches each window once: its scheduled syncs leave the backfill its windows', async () => {
    const { sim, schema, child } = await startDaemon();
    await until(() => historyComplete(schema), 90_000, 'the background backfill');
    // A few more ticks after it: none fetches the history again.
    const syncs = `SELECT count(*) AS n FROM "${schema}".sync_runs WHERE command = 'sync'`;
    const runs = async () => Number((await select<{ n: string }>(syncs))[0]?.n ?? 0);
    const after = await runs();
    await until(async () => ((await runs()) >= after + 3 ? true : undefined), 30_000, 'three more syncs');
    child.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);
    await expectTruth(schema, sim);
    const sessions = truthFacts(sim, 'authentications').length + truthFacts(sim, 'fingerprints').length;
    // A lone backfill sees a few items twice where its streams hand windows over (1,529 for these 1,500);
    // fetching the windows both in the syncs and in the backfill took twice the history.
    expect(itemsFetched(sim)).toBeGreaterThanOrEqual(sessions);
    expect(itemsFetched(sim)).toBeLessThan(sessions * 1.1);
  }, 120_000);

  it('resumes by itself after its database was gone past the retries; each run ends with its real status', async () => {
    const { sim, schema, child, proxy } = await startDaemon({ store: { retrySeconds: 1 } });
    // Cut once the backfill has committed part of the history.
    const sum = `SELECT sum(pages) AS n FROM "${schema}".sync_windows`;
    const pages = async () => Number((await select<{ n: string }>(sum))[0]?.n ?? 0);
    await until(async () => ((await pages()) > 5 ? true : undefined), 60_000, 'backfill progress');
    await proxy.cut();
    const stopped = () => /background backfill stopped/.test(child.stderr());
    await until(() => (stopped() ? true : undefined), 60_000, 'the backfill stopped');
    await proxy.restore();
    await until(() => historyComplete(schema), 90_000, 'the background backfill resumed and complete');
    // Runs that ended while the database was gone are recorded once it is back.
    await until(
      async () => {
        const sql = `SELECT id FROM "${schema}".sync_runs WHERE status = 'running' AND command = 'backfill'`;
        const open = await select<{ id: string }>(sql);
        return open.length === 0 ? true : undefined;
      },
      30_000,
      'no backfill left running',
    );
    child.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);
    await expectTruth(schema, sim);
    const sql = `SELECT command, status, error FROM "${schema}".sync_runs`;
    const runs = await select<{ command: string; status: string; error: string | null }>(sql);
    expect(runs.filter((r) => r.status === 'running')).toEqual([]);
    const backfills = runs.filter((r) => r.command === 'backfill').map((r) => r.status);
    expect(backfills).toContain('failed');
    expect(backfills.filter((s) => s === 'succeeded')).toHaveLength(1);
    expect(runs.filter((r) => r.status === 'failed').every((r) => r.error !== null)).toBe(true);
  }, 180_000);
});
