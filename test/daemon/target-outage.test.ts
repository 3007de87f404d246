import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { announcePostgres, POSTGRES_URL, postgresUp } from '../helpers/postgres.js';
import { spawnIvsync, type Child } from '../helpers/run-cli.js';
import { servedUrl } from '../helpers/served-url.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_START } from '../helpers/truth.js';
import { until } from '../helpers/wait.js';
import { parsePrometheusText } from './prometheus-text.js';

announcePostgres('target outage tests');

const tempDir = useTempDir();
let sim: RunningSimulator | undefined;
let proxy: TcpProxy | undefined;
let schema = '';
const children: Child[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await sim?.close();
  await proxy?.close();
  sim = undefined;
  proxy = undefined;
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

async function health(base: string): Promise<{ status: number; body: { status: string; reason?: string; detail?: string } }> {
  const res = await fetch(`${base}/healthz`);
  return { status: res.status, body: (await res.json()) as { status: string; reason?: string } };
}

async function failedRuns(base: string): Promise<number> {
  const families = parsePrometheusText(await (await fetch(`${base}/metrics`)).text());
  return families.get('ivsync_runs_total')?.samples.find((s) => s.labels.command === 'sync' && s.labels.status === 'failed')?.value ?? 0;
}

describe.skipIf(!postgresUp)('the daemon while its target database is down', () => {
  it('counts every failed run, answers 503 with the reason, and backs off', async () => {
    sim = await startSimulator({ sessions: 30, seed: 41, rate: 1000, burst: 1000 });
    const url = new URL(POSTGRES_URL!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    schema = `ivs_test_${randomBytes(6).toString('hex')}`;
    url.port = String(proxy.port);
    url.searchParams.set('schema', schema);
    const dir = tempDir();
    const env = { IVS_BASE_URL: sim.url, IVS_API_TOKEN: 'test-token', IVS_DB: url.toString(), IVS_CONFIG: writeConfig(dir, { store: { retrySeconds: 1 } }), IVS_RATE: '1000' };
    const child = spawnIvsync(['daemon', '--schedule', '* * * * * *', '--since', String(HISTORY_START), '--port', '0'], env);
    children.push(child);
    const base = await servedUrl(child);
    await until(async () => ((await health(base)).body.detail?.startsWith('last run succeeded') ? true : undefined), 30_000, 'a first run that succeeded');

    await proxy.cut();
    const down = await until(async () => {
      const h = await health(base);
      return h.status === 503 && (await failedRuns(base)) >= 2 ? h : undefined;
    }, 30_000, 'two failed runs while the database is down');
    expect(down.body.reason).toMatch(/ECONNREFUSED|ECONNRESET|terminat|connect/i);
    // Three failed runs in a row: the crash-loop back-off applies to database failures too.
    const loop = await until(async () => {
      const h = await health(base);
      return /crash loop/.test(h.body.reason ?? '') ? h : undefined;
    }, 30_000, 'the crash-loop back-off');
    expect(loop.status).toBe(503);

    await proxy.restore();
    child.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);
  }, 120_000);
});
