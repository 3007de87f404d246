import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { startAlertReceiver, type AlertReceiver } from '../helpers/alert-receiver.js';
import { announcePostgres, POSTGRES_URL, postgresUp } from '../helpers/postgres.js';
import { spawnIvsync, type Child } from '../helpers/run-cli.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_START } from '../helpers/truth.js';
import { until, whenRequests } from '../helpers/wait.js';

announcePostgres('lease takeover alert tests');

const tempDir = useTempDir();
let sim: RunningSimulator | undefined;
let receiver: AlertReceiver | undefined;
let proxy: TcpProxy | undefined;
const schema = `ivs_takeover_${randomBytes(5).toString('hex')}`;
const children: Child[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await sim?.close();
  await receiver?.close();
  await proxy?.close();
  sim = undefined;
  receiver = undefined;
  proxy = undefined;
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

describe.skipIf(!postgresUp)('two daemons on one Postgres target', () => {
  it('the daemon whose lease was taken over mid-run sends one "lease_taken_over" naming the new holder', async () => {
    // Slow enough that the first sync is still paging when its daemon is stopped: about 25 pages at 5 a second.
    sim = await startSimulator({ sessions: 600, seed: 43, rate: 5, burst: 5, latencyMs: [20, 40] });
    receiver = await startAlertReceiver();
    const url = new URL(POSTGRES_URL!);
    url.searchParams.set('schema', schema);
    // The first daemon reaches the database through a proxy the test cuts: its heartbeats stop, as a process cut
    // off from its target would, and its connections end (a stopped process would hold its locks).
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    const proxied = new URL(url);
    proxied.port = String(proxy.port);
    const dir = tempDir();
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: url.toString(),
      IVS_RATE: '5',
      // Stale checks (a run every second leaves no refresh budget) are not what this test is about.
      IVS_CONFIG: writeConfig(dir, { alerts: { staleCheckSeconds: 86_400 } }),
      IVS_ALERTS_URL: receiver.url,
    };
    const args = ['daemon', '--schedule', '* * * * * *', '--since', String(HISTORY_START), '--lease-ttl', '3'];
    const db = new pg.Client({ connectionString: POSTGRES_URL });
    await db.connect();
    try {
      const holder = async (): Promise<string | undefined> =>
        (
          await db
            .query<{ holder: string }>(`SELECT holder FROM "${schema}".sync_leases WHERE name = 'account:default'`)
            .catch(() => ({ rows: [] as Array<{ holder: string }> }))
        ).rows[0]?.holder;

      const first = spawnIvsync(args, { ...env, IVS_DB: proxied.toString() });
      children.push(first);
      await whenRequests(sim, 5, first.exited);
      const firstId = await until(holder, 30_000, 'the first daemon holding the lease');
      // Its heartbeats stop mid-sync; the other takes over after the ttl.
      await proxy.cut();
      const second = spawnIvsync(args, env);
      children.push(second);
      const secondId = await until(
        async () => {
          const now = await holder();
          return now !== undefined && now !== firstId ? now : undefined;
        },
        45_000,
        'the second daemon taking the lease over',
      );
      await proxy.restore();
      await until(
        () => (receiver!.messages.some((m) => m.kind === 'lease_taken_over') ? true : undefined),
        45_000,
        'the takeover message',
      );
      for (const child of [first, second]) child.kill('SIGTERM');
      for (const child of [first, second]) expect((await child.exited).code).toBe(0);

      // One message, from the daemon that lost the lease; the one that took it over has nothing to report.
      expect(receiver.messages.map((m) => m.kind)).toEqual(['lease_taken_over']);
      expect(receiver.messages[0]).toMatchObject({
        severity: 'info',
        account: 'default',
        command: 'sync',
        holder: secondId,
        daemon: firstId,
      });
      expect(receiver.messages[0]!.text).toContain(`took its lease over`);
    } finally {
      await db.end();
    }
  }, 150_000);
});
