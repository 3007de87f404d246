import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { startAlertReceiver, type AlertReceiver } from '../helpers/alert-receiver.js';
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
let receiver: AlertReceiver | undefined;
let schema = '';
const children: Child[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await sim?.close();
  await proxy?.close();
  await receiver?.close();
  sim = undefined;
  proxy = undefined;
  receiver = undefined;
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

async function health(
  base: string,
): Promise<{ status: number; body: { status: string; reason?: string; detail?: string } }> {
  const res = await fetch(`${base}/healthz`);
  return { status: res.status, body: (await res.json()) as { status: string; reason?: string } };
}

async function runs(base: string, status: 'failed' | 'succeeded'): Promise<number> {
  const families = parsePrometheusText(await (await fetch(`${base}/metrics`)).text());
  return (
    families.get('ivsync_runs_total')?.samples.find((s) => s.labels.command === 'sync' && s.labels.status === status)
      ?.value ?? 0
  );
}

const failedRuns = (base: string): Promise<number> => runs(base, 'failed');

describe.skipIf(!postgresUp)('the daemon while its target database is down', () => {
  it('counts every failed run, answers 503 with the reason, and backs off', async () => {
    sim = await startSimulator({ sessions: 30, seed: 41, rate: 1000, burst: 1000 });
    const url = new URL(POSTGRES_URL!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    schema = `ivs_test_${randomBytes(6).toString('hex')}`;
    url.port = String(proxy.port);
    url.searchParams.set('schema', schema);
    const dir = tempDir();
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: url.toString(),
      IVS_CONFIG: writeConfig(dir, { store: { retrySeconds: 1 } }),
      IVS_RATE: '1000',
    };
    const child = spawnIvsync(
      ['daemon', '--schedule', '* * * * * *', '--since', String(HISTORY_START), '--port', '0'],
      env,
    );
    children.push(child);
    const base = await servedUrl(child);
    await until(
      async () => ((await health(base)).body.detail?.startsWith('last run succeeded') ? true : undefined),
      30_000,
      'a first run that succeeded',
    );

    await proxy.cut();
    const down = await until(
      async () => {
        const h = await health(base);
        return h.status === 503 && (await failedRuns(base)) >= 2 ? h : undefined;
      },
      30_000,
      'two failed runs while the database is down',
    );
    expect(down.body.reason).toMatch(/ECONNREFUSED|ECONNRESET|terminat|connect/i);
    // Three failed runs in a row: the crash-loop back-off applies to database failures too.
    const loop = await until(
      async () => {
        const h = await health(base);
        return /crash loop/.test(h.body.reason ?? '') ? h : undefined;
      },
      30_000,
      'the crash-loop back-off',
    );
    expect(loop.status).toBe(503);

    await proxy.restore();
    child.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);
  }, 120_000);

  it('an outage of the target sends one "failed" and one "recovered" alert, in order', async () => {
    sim = await startSimulator({ sessions: 30, seed: 42, rate: 1000, burst: 1000 });
    receiver = await startAlertReceiver();
    const url = new URL(POSTGRES_URL!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    schema = `ivs_test_${randomBytes(6).toString('hex')}`;
    url.port = String(proxy.port);
    url.searchParams.set('schema', schema);
    const dir = tempDir();
    // Stale checks (a run every second leaves no refresh budget) are not what this test is about.
    const config = writeConfig(dir, { store: { retrySeconds: 1 }, alerts: { staleCheckSeconds: 86_400 } });
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: url.toString(),
      IVS_CONFIG: config,
      IVS_RATE: '1000',
      IVS_ALERTS_URL: receiver.url,
    };
    const child = spawnIvsync(
      ['daemon', '--schedule', '* * * * * *', '--since', String(HISTORY_START), '--port', '0'],
      env,
    );
    children.push(child);
    const base = await servedUrl(child);
    await until(
      async () => ((await runs(base, 'succeeded')) > 0 ? true : undefined),
      30_000,
      'a first run that succeeded',
    );

    // Down for one failed run: fewer than the three failed ticks in a row that start the backoff.
    await proxy.cut();
    await until(
      async () => ((await failedRuns(base)) >= 1 ? true : undefined),
      30_000,
      'a failed run while the database is down',
    );
    await proxy.restore();
    await until(
      () => (receiver!.messages.some((m) => m.kind === 'run_recovered') ? true : undefined),
      30_000,
      'the recovered message',
    );
    // Every failure came before the run that recovered.
    const failures = await failedRuns(base);
    // More runs succeed: they add no message.
    const after = await runs(base, 'succeeded');
    await until(async () => ((await runs(base, 'succeeded')) >= after + 2 ? true : undefined), 30_000, 'two more runs');
    child.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);

    expect(receiver.messages.map((m) => m.kind)).toEqual(['run_failed', 'run_recovered']);
    const [failed, recovered] = receiver.messages;
    expect(failed).toMatchObject({ severity: 'problem', account: 'default', command: 'sync' });
    expect(failed!.error).toMatch(/ECONNREFUSED|ECONNRESET|terminat|connect/i);
    expect(recovered).toMatchObject({ severity: 'resolved', account: 'default', command: 'sync', failures });
    expect(Date.parse(recovered!.since!)).toBeLessThanOrEqual(Date.parse(recovered!.at));
  }, 120_000);
});
