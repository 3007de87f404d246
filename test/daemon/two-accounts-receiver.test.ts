import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { Secret } from '../../src/config/secret.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { spawnIvsync, type Child } from '../helpers/run-cli.js';
import { servedUrl } from '../helpers/served-url.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { createWebhook, post, SECRET, sign } from '../webhooks/harness.js';
import { parsePrometheusText } from './prometheus-text.js';
import { clientOptions } from '../helpers/client-options.js';
import { TWO_TOKENS, twoAccountEnv } from '../helpers/two-accounts.js';

const tempDir = useTempDir();
let sim: RunningSimulator | undefined;
const children: Child[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await sim?.close();
  sim = undefined;
});

const clientOf = (s: RunningSimulator, token: string) =>
  createClient(clientOptions(s.url, { token: new Secret(token) }));

describe('one daemon, two accounts, one receiver', () => {
  it('writes each delivery under the account that owns its webhook, and refuses one that no account owns', async () => {
    sim = await startSimulator({
      sessions: 40,
      seed: 5,
      rate: 10_000,
      burst: 10_000,
      webhookRetryBaseMs: 5,
      tokens: TWO_TOKENS,
    });
    const { db, env } = twoAccountEnv(tempDir(), sim.url, { IVS_WEBHOOK_SECRET: SECRET.reveal() });
    // A schedule that does not come round during the test: only deliveries write.
    const child = spawnIvsync(['daemon', '--schedule', '0 0 1 1 *', '--port', '0'], env);
    children.push(child);
    const base = await servedUrl(child);

    const alice = clientOf(sim, 'tok-a');
    const bob = clientOf(sim, 'tok-b');
    try {
      await createWebhook(alice, `${base}/webhooks`, ['authentication']);
      await createWebhook(bob, `${base}/webhooks`, ['authentication']);
      // The mirror says which account's token listed which webhook.
      for (const account of ['a1', 'a2'])
        expect((await spawnIvsync(['webhooks', 'list', '--account', account], env).exited).code).toBe(0);

      const changed = {
        alice: sim.world.serviceIds('alice', 'authentications').slice(0, 2),
        bob: sim.world.serviceIds('bob', 'authentications').slice(0, 3),
      };
      for (const id of [...changed.alice, ...changed.bob]) sim.world.setResult(id, 'authentic', true);
      await sim.deliveries.settled();
      expect(sim.stats.deliveries.gaveUp).toBe(0);

      const accountOf = (id: string) =>
        query<{ account: string }>(db, 'SELECT account FROM authentications WHERE service_id = ?', id)[0]?.account;
      for (const id of changed.alice) expect(accountOf(id)).toBe('a1');
      for (const id of changed.bob) expect(accountOf(id)).toBe('a2');

      const stranger = JSON.stringify({
        channel: 'default',
        webhook_uuid: '00000000-0000-4000-8000-000000000000',
        item_count: 0,
        items: [],
      });
      expect((await post(`${base}/webhooks`, stranger, { 'Service-Signature': sign(SECRET, stranger) })).status).toBe(
        403,
      );
      const refused = parsePrometheusText(await (await fetch(`${base}/metrics`)).text())
        .get('ivsync_webhook_deliveries_total')
        ?.samples.find((s) => s.labels.reason === 'unknown-webhook');
      expect(refused?.value).toBe(1);
    } finally {
      alice.close();
      bob.close();
    }
    child.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);
  });
});
