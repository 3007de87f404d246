import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { Secret } from '../../src/config/secret.js';
import { clientOptions } from '../helpers/client-options.js';
import { runIvsync, spawnIvsync, type Child } from '../helpers/run-cli.js';
import { servedUrl } from '../helpers/served-url.js';
import { useSimulators } from '../helpers/simulators.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { expectTargetEqualsTruth } from '../helpers/truth.js';
import { createWebhook, SECRET } from '../webhooks/harness.js';
import { afterEach } from 'vitest';

const simulator = useSimulators({
  sessions: 60,
  seed: 71,
  rate: 10_000,
  burst: 10_000,
  nonFinalShare: 0.4,
  webhookRetryBaseMs: 5,
});
const tempDir = useTempDir();
const children: Child[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

const HOUR = 3600;
const RUN_MS = 300_000;
const IDLE_RUNS = 40;

/**
 * A young history (every session hot), its non-final sessions changed at the
 * service, then idle syncs five minutes apart on the injected clock. With
 * `webhooks`, a daemon's receiver took the changes as signed deliveries first.
 * Returns the refresh requests of the idle runs, from their reports.
 */
async function idleRefresh(webhooks: boolean): Promise<{ requests: number; db: string }> {
  const now = Math.floor(Date.now() / 1000);
  const sim = await simulator({ from: now - 20 * HOUR, to: now - 60 });
  const dir = tempDir();
  const db = join(dir, 'ivsync.sqlite');
  const config = writeConfig(dir, {
    crawl: { windowSeconds: HOUR, concurrency: 1, overlapSeconds: 600 },
    webhooks: { healthySeconds: 30 * 86_400 },
  });
  const env = {
    IVS_BASE_URL: sim.url,
    IVS_API_TOKEN: 'test-token',
    IVS_DB: `sqlite:${db}`,
    IVS_CONFIG: config,
    IVS_RATE: '10000',
    ...(webhooks ? { IVS_WEBHOOK_SECRET: SECRET.reveal() } : {}),
  };
  let t = now * 1000;
  const sync = () => runIvsync(['sync', '--json'], env, undefined, () => t);
  expect((await runIvsync(['sync', '--since', String(now - 86_400)], env, undefined, () => t)).code).toBe(0);

  const nonFinal = query<{ service_id: string }>(
    db,
    'SELECT service_id FROM authentications WHERE result_final = 0 UNION ALL SELECT service_id FROM ' +
      'fingerprints WHERE result_final = 0',
  );
  expect(nonFinal.length).toBeGreaterThan(10);
  if (webhooks) {
    // The receiver of a daemon whose schedule does not come round during the test.
    const daemon = spawnIvsync(['daemon', '--schedule', '0 0 1 1 *', '--port', '0'], env);
    children.push(daemon);
    const client = createClient(clientOptions(sim.url, { token: new Secret('test-token') }));
    try {
      await createWebhook(client, `${await servedUrl(daemon)}/webhooks`);
    } finally {
      client.close();
    }
    for (const { service_id } of nonFinal) sim.world.setFlag(service_id, 'review');
    await sim.deliveries.settled();
    expect(sim.stats.deliveries.gaveUp).toBe(0);
    // Every change arrived by delivery alone.
    expectTargetEqualsTruth(db, sim);
    daemon.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(0);
  } else {
    for (const { service_id } of nonFinal) sim.world.setFlag(service_id, 'review');
  }

  let requests = 0;
  for (let run = 0; run < IDLE_RUNS; run++) {
    t += RUN_MS;
    const result = await sync();
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { outcomes: Array<{ refreshRequests: number }> };
    requests += report.outcomes.reduce((n, o) => n + o.refreshRequests, 0);
  }
  expectTargetEqualsTruth(db, sim);
  // A month on, nothing delivered since: status says the stream went quiet and sync polls instead.
  const status = await runIvsync(['status', '--json'], env, undefined, () => t + 31 * 86_400_000);
  const stream = (JSON.parse(status.stdout) as { webhookStream: { healthy: boolean; detail: string } }).webhookStream;
  if (webhooks)
    expect(stream).toEqual(
      expect.objectContaining({
        healthy: false,
        detail: expect.stringMatching(
          /^quiet: last delivery .*; sync polls the \d+ non-final sessions by age instead$/,
        ),
      }),
    );
  else expect(stream.detail).toMatch(/^no webhook secret configured/);
  return { requests, db };
}

describe('refresh with a healthy webhook stream', () => {
  it('spends at least five times fewer refresh requests than polling, and the tables equal the truth', async () => {
    const polled = await idleRefresh(false);
    const pushed = await idleRefresh(true);
    expect(
      pushed.requests * 5,
      `refresh requests: ${pushed.requests} with webhooks, ${polled.requests} without`,
    ).toBeLessThanOrEqual(polled.requests);
    // The sessions the deliveries updated rest on their back-off; nothing is hot.
    expect(query(pushed.db, 'SELECT tier, COUNT(*) AS n FROM session_refresh GROUP BY tier')).toEqual([
      { tier: 'backoff', n: expect.any(Number) },
    ]);
    // Two idle-refresh scenes one after the other: a hang guard above the suite's default.
  }, 120_000);
});
