import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { cliError, runIvsync } from '../helpers/run-cli.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';
import {
  clientFor,
  count,
  createWebhook,
  deliveryBody,
  post,
  row,
  SECRET,
  sign,
  signedDelivery,
  startHarness,
  startSim,
  TOKEN,
  type Harness,
} from './harness.js';

const tempDir = useTempDir();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setup(
  options: Parameters<typeof startHarness>[1] = {},
  simOptions: Parameters<typeof startSim>[0] = {},
) {
  const sim = await startSim(simOptions);
  closers.push(() => sim.close());
  const dir = tempDir();
  const h = await startHarness(dir, options);
  closers.push(() => h.close());
  const client = clientFor(sim);
  closers.push(async () => client.close());
  const env = { IVS_BASE_URL: sim.url, IVS_API_TOKEN: TOKEN, IVS_DB: `sqlite:${h.db}`, IVS_CONFIG: writeConfig(dir) };
  return { sim, h, client, env };
}

async function settle(sim: RunningSimulator, h: Harness): Promise<void> {
  await sim.deliveries.settled();
  await h.receiver.idle();
}

function goodIds(sim: RunningSimulator, resource: 'authentications' | 'fingerprints', n: number): string[] {
  return sim.world
    .serviceIds('alice', resource)
    .filter((id) => sim.world.get(id)?.bad === null)
    .slice(0, n);
}

const since = (): string => String(Math.floor(Date.now() / 1000) - 3600);

describe('deliveries from the simulator', () => {
  it('shuffled, out-of-order deliveries end at the highest counter; lower counters count as stale', async () => {
    const { sim, h, client } = await setup({}, { seed: 3 });
    await createWebhook(client, h.url);
    const ids = goodIds(sim, 'authentications', 5);
    sim.deliveries.pause();
    for (let round = 0; round < 6; round++) {
      for (const id of ids) sim.world.setResult(id, round % 2 === 0 ? 'unidentified' : 'authentic', round === 5);
    }
    sim.deliveries.resume('shuffle');
    await settle(sim, h);

    expect(count(h.db, 'webhook_deliveries')).toBe(30);
    for (const id of ids) {
      const truth = sim.world.get(id)!;
      expect(row(h.db, 'authentications', id)).toMatchObject({
        update_counter: truth.updateCounter,
        result_id: 'authentic',
        result_final: 1,
        source: 'webhook',
      });
    }
    const stale = h.events.reduce((n, e) => n + (e.outcome === 'accepted' ? e.stale : 0), 0);
    const applied = h.events.reduce((n, e) => n + (e.outcome === 'accepted' ? e.applied : 0), 0);
    expect(stale).toBeGreaterThan(0);
    expect(stale + applied).toBe(30);
    expect(query(h.db, 'SELECT sum(applied) AS n FROM webhook_deliveries')).toEqual([{ n: applied }]);
  });

  it('records channel and webhook uuid with the body, and never the signature or the secret', async () => {
    const { sim, h, client } = await setup();
    const uuid = await createWebhook(client, h.url);
    const [id] = goodIds(sim, 'authentications', 1);
    sim.world.finalize(id!);
    await settle(sim, h);
    const [delivery] = query(h.db, 'SELECT * FROM webhook_deliveries');
    expect(delivery).toMatchObject({ webhook_uuid: uuid, channel: 'default', signature_ok: 1, items: 1, applied: 1 });
    expect(JSON.parse(String(delivery!.body)).items[0].service_id).toBe(id);
    const dump =
      JSON.stringify(query(h.db, 'SELECT * FROM webhook_deliveries')) +
      JSON.stringify(query(h.db, 'SELECT * FROM authentications'));
    expect(dump).not.toContain(SECRET.reveal());
    expect(dump).not.toContain('SHA256:');
  });

  it(
    'a poll after a webhook wins by time and keeps the ' + 'counter; the held delivery then lands: newest state',
    async () => {
      const { sim, h, client, env } = await setup();
      await createWebhook(client, h.url);
      const s = sim.world.addSession({ final: false });
      sim.world.setResult(s.serviceId, 'unidentified', false);
      await settle(sim, h);
      const counterBefore = sim.world.get(s.serviceId)!.updateCounter;
      expect(row(h.db, 'authentications', s.serviceId)).toMatchObject({
        result_id: 'unidentified',
        update_counter: counterBefore,
      });

      sim.deliveries.pause();
      sim.world.finalize(s.serviceId, 'authentic');
      const sync = await runIvsync(['sync', '--since', since()], env);
      expect(cliError(sync.stderr)).toBeUndefined();
      expect(sync.code).toBe(0);
      expect(row(h.db, 'authentications', s.serviceId)).toMatchObject({
        result_id: 'authentic',
        result_final: 1,
        source: 'search',
        update_counter: counterBefore,
      });

      sim.deliveries.resume();
      await settle(sim, h);
      expect(row(h.db, 'authentications', s.serviceId)).toMatchObject({
        result_id: 'authentic',
        result_final: 1,
        update_counter: sim.world.get(s.serviceId)!.updateCounter,
      });
    },
  );

  it('a delayed, stale webhook after a fresh poll changes nothing', async () => {
    const { sim, h, client, env } = await setup();
    const uuid = await createWebhook(client, h.url);
    const s = sim.world.addSession({ final: false });
    sim.world.setResult(s.serviceId, 'unidentified', false);
    // The service's late retry of that delivery, and the same change from a second webhook on this URL, held back.
    const retry = deliveryBody(sim, s.serviceId, uuid);
    const second = deliveryBody(sim, s.serviceId, 'wh-second');
    sim.world.finalize(s.serviceId, 'authentic');
    await settle(sim, h);
    expect((await runIvsync(['sync', '--since', since()], env)).code).toBe(0);
    const fresh = row(h.db, 'authentications', s.serviceId);
    expect(fresh).toMatchObject({ result_id: 'authentic', result_final: 1, source: 'search' });

    const replayed = await post(h.url, retry, { 'Service-Signature': sign(SECRET, retry) });
    expect(replayed.status).toBe(200);
    expect(await replayed.json()).toMatchObject({ duplicate: true, applied: 0 });
    const stale = await post(h.url, second, { 'Service-Signature': sign(SECRET, second) });
    expect(stale.status).toBe(200);
    expect(await stale.json()).toMatchObject({ duplicate: false, applied: 0, stale: 1 });
    expect(row(h.db, 'authentications', s.serviceId)).toEqual(fresh);
  });

  it('deliveries held behind a poll that stored no counter, released newest first, end newest', async () => {
    const { sim, h, client, env } = await setup();
    await createWebhook(client, h.url);
    sim.deliveries.pause();
    const s = sim.world.addSession({ final: false });
    sim.world.setResult(s.serviceId, 'unidentified', false);
    sim.world.finalize(s.serviceId, 'authentic');
    expect((await runIvsync(['sync', '--since', since()], env)).code).toBe(0);
    expect(row(h.db, 'authentications', s.serviceId)).toMatchObject({ result_id: 'authentic', update_counter: null });
    sim.deliveries.resume('reverse');
    await settle(sim, h);
    expect(row(h.db, 'authentications', s.serviceId)).toMatchObject({
      result_id: 'authentic',
      result_final: 1,
      update_counter: sim.world.get(s.serviceId)!.updateCounter,
    });
    expect(h.events.filter((e) => e.outcome === 'accepted' && e.stale === 1)).toHaveLength(2);
  });

  it('a fingerprint delivery (no fingerprint_parent) keeps the parent a poll stored', async () => {
    const { sim, h, client, env } = await setup({}, { seed: 4 });
    const compare = goodIds(sim, 'fingerprints', 1000)
      .map((id) => sim.world.get(id)!)
      .find((r) => r.mode === 'compare' && r.parentId !== null && sim.world.get(r.parentId)?.owner === 'alice');
    expect(compare).toBeDefined();
    const backfill = await runIvsync(
      ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END), '--resources', 'fingerprints'],
      env,
    );
    expect(backfill.code).toBe(0);
    expect(row(h.db, 'fingerprints', compare!.serviceId)).toMatchObject({
      parent_service_id: compare!.parentId,
      parent_accessible: 1,
      update_counter: null,
    });

    await createWebhook(client, h.url, ['fingerprint']);
    sim.world.setResult(compare!.serviceId, 'match', true);
    await settle(sim, h);
    const delivered = JSON.parse(String(query(h.db, 'SELECT body FROM webhook_deliveries')[0]!.body));
    expect(delivered.items[0]).not.toHaveProperty('fingerprint_parent');
    expect(row(h.db, 'fingerprints', compare!.serviceId)).toMatchObject({
      source: 'webhook',
      result_id: 'match',
      update_counter: sim.world.get(compare!.serviceId)!.updateCounter,
      parent_service_id: compare!.parentId,
      parent_accessible: 1,
    });
  });

  it(
    'a delivery of a session the target does not hold is followed by a GET (after the answer), which brings the ' +
      'parent',
    async () => {
      const sim = await startSim({ seed: 4 });
      closers.push(() => sim.close());
      const client = clientFor(sim);
      closers.push(async () => client.close());
      const h = await startHarness(tempDir(), { client });
      closers.push(() => h.close());
      const uuid = await createWebhook(client, h.url, ['fingerprint']);
      const compare = goodIds(sim, 'fingerprints', 1000)
        .map((id) => sim.world.get(id)!)
        .find((r) => r.mode === 'compare' && r.parentId !== null && sim.world.get(r.parentId)?.owner === 'alice')!;
      const gets = (): number => sim.stats.byRoute['GET /v1/fingerprints/{service_id}']?.['200'] ?? 0;

      sim.world.setResult(compare.serviceId, 'match', true);
      await settle(sim, h);
      expect(gets()).toBe(1);
      expect(row(h.db, 'fingerprints', compare.serviceId)).toMatchObject({
        source: 'get',
        parent_service_id: compare.parentId,
        result_id: 'match',
      });

      // Known now, next counter: nothing to ask.
      sim.world.setResult(compare.serviceId, 'match', true);
      await settle(sim, h);
      expect(gets()).toBe(1);

      // A counter jump (deliveries missing in between) asks again.
      sim.world.setResult(compare.serviceId, 'match', true);
      const skipped = deliveryBody(sim, compare.serviceId, uuid);
      sim.world.setResult(compare.serviceId, 'match', true);
      await settle(sim, h);
      expect(gets()).toBe(1);
      expect(JSON.parse(skipped).items[0].update_counter).toBe(sim.world.get(compare.serviceId)!.updateCounter - 1);
      const jumped = deliveryBody(sim, compare.serviceId, uuid).replace(
        /"update_counter":(\d+)/,
        (_m, n: string) => `"update_counter":${Number(n) + 5}`,
      );
      expect((await post(h.url, jumped, { 'Service-Signature': sign(SECRET, jumped) })).status).toBe(200);
      await h.receiver.idle();
      expect(gets()).toBe(2);
    },
  );
});

describe('raw', () => {
  it("is each delivered item's text as sent, spacing included, for either interface", async () => {
    const { sim, h } = await setup();
    const [id] = goodIds(sim, 'authentications', 1);
    const compact = JSON.parse(deliveryBody(sim, id!, 'wh-raw')) as { items: Record<string, unknown>[] };
    const v14 = JSON.stringify(compact.items[0], null, 1);
    const v2 =
      '{ "service_id": "raw-v2", "activity": {"name": "authentication"}, "timestamp": {"created_at": ' +
      '"2026-01-01T00:00:00Z"} }';
    const body = `{"channel": "default", "webhook_uuid": "wh-raw", "item_count": 2, "items": [${v14}, ${v2}]}`;
    const answer = await post(h.url, body, { 'Service-Signature': sign(SECRET, body) });
    expect(answer.status).toBe(200);
    expect(row(h.db, 'authentications', id!)?.raw).toBe(v14);
    expect(row(h.db, 'authentications', 'raw-v2')?.raw).toBe(v2);
  });
});

describe('refused requests change nothing', () => {
  it.each([
    [
      'a wrong secret',
      (body: string) => ({
        body,
        headers: { 'Service-Signature': sign(new Secret('not-the-configured-secret!'), body) },
      }),
      401,
    ],
    [
      'a tampered body',
      (body: string) => ({
        body: body.replace('"default"', '"other"'),
        headers: { 'Service-Signature': sign(SECRET, body) },
      }),
      401,
    ],
    ['a missing header', (body: string) => ({ body, headers: {} }), 401],
    [
      'a sha256= header',
      (body: string) => ({ body, headers: { 'Service-Signature': `sha256=${sign(SECRET, body).slice(7)}` } }),
      400,
    ],
    [
      'a hex signature',
      (body: string) => ({
        body,
        headers: {
          'Service-Signature': `SHA256:${Buffer.from(sign(SECRET, body).slice(7), 'base64').toString('hex')}`,
        },
      }),
      400,
    ],
    [
      'invalid JSON, signed',
      (_body: string) => ({ body: '{"items": [', headers: { 'Service-Signature': sign(SECRET, '{"items": [') } }),
      400,
    ],
    [
      'a body without items, signed',
      (_body: string) => ({
        body: '{"webhook_uuid":"u"}',
        headers: { 'Service-Signature': sign(SECRET, '{"webhook_uuid":"u"}') },
      }),
      400,
    ],
    [
      'an oversized body, signed',
      (body: string) => {
        const big = JSON.stringify({ ...JSON.parse(body), pad: 'x'.repeat(8000) });
        return { body: big, headers: { 'Service-Signature': sign(SECRET, big) } };
      },
      413,
    ],
  ] as const)('%s', async (_name, make, status) => {
    const { sim, h } = await setup({ maxBodyBytes: 4096 });
    const [id] = goodIds(sim, 'authentications', 1);
    const good = deliveryBody(sim, id!, 'wh-1');
    const { body, headers } = make(good);
    const answer = await post(h.url, body, headers);
    expect(answer.status).toBe(status);
    for (const table of ['webhook_deliveries', 'authentications', 'fingerprints', 'rejected_items'])
      expect(count(h.db, table)).toBe(0);
    expect(h.events).toEqual([expect.objectContaining({ outcome: 'refused', status })]);

    // The same receiver takes the genuine delivery.
    expect((await post(h.url, good, { 'Service-Signature': sign(SECRET, good) })).status).toBe(200);
    expect(count(h.db, 'webhook_deliveries')).toBe(1);
  });

  it(
    'a signed body that is not valid UTF-8 is refused 400 (invalid-encoding), never stored with replacement ' +
      'characters',
    async () => {
      const h = await startHarness(tempDir());
      closers.push(() => h.close());
      const bytes = Buffer.from(signedDelivery('not-utf8').body.replace('"default"', '"defa@ult"'));
      // 0xC3 opens a two-byte sequence that '(' cannot continue.
      bytes.set([0xc3, 0x28], bytes.indexOf('@'));
      const answer = await post(h.url, bytes, { 'Service-Signature': sign(SECRET, bytes) });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toEqual({ error: 'the body is not valid UTF-8' });
      for (const table of ['webhook_deliveries', 'authentications', 'rejected_items'])
        expect(count(h.db, table)).toBe(0);
      expect(h.events).toEqual([{ outcome: 'refused', status: 400, reason: 'invalid-encoding' }]);
    },
  );

  it('stops reading a chunked body at the limit and answers 413', async () => {
    const { h } = await setup({ maxBodyBytes: 4096 });
    const url = new URL(h.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { 'Service-Signature': sign(SECRET, 'x'), 'Content-Type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write('x'.repeat(3000));
      req.write('x'.repeat(3000));
      req.end();
    });
    expect(status).toBe(413);
    expect(count(h.db, 'webhook_deliveries')).toBe(0);
  });

  it('answers 405 to other methods and 404 to other paths', async () => {
    const { h } = await setup();
    const get = await post(h.url, '', {}, 'GET');
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(
      (
        await post(h.url.replace('/webhooks', '/hooks'), '{"items":[]}', {
          'Service-Signature': sign(SECRET, '{"items":[]}'),
        })
      ).status,
    ).toBe(404);
    expect(
      (await post(`${h.url}/x`, '{"items":[]}', { 'Service-Signature': sign(SECRET, '{"items":[]}') })).status,
    ).toBe(404);
    expect(count(h.db, 'webhook_deliveries')).toBe(0);
  });
});

describe('replays and secrets', () => {
  it('a replayed delivery is one inbox row; the same item and counter in other bytes counts stale', async () => {
    const { sim, h } = await setup();
    const [id] = goodIds(sim, 'authentications', 1);
    const body = deliveryBody(sim, id!, 'wh-1');
    const headers = { 'Service-Signature': sign(SECRET, body) };
    const first = await post(h.url, body, headers);
    expect(await first.json()).toMatchObject({ duplicate: false, applied: 1, stale: 0 });
    const stored = row(h.db, 'authentications', id!);
    const again = await post(h.url, body, headers);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ duplicate: true, applied: 0 });
    expect(count(h.db, 'webhook_deliveries')).toBe(1);

    const reworded = deliveryBody(sim, id!, 'wh-1', { item_count: 1, delivery_note: 'retry' });
    const third = await post(h.url, reworded, { 'Service-Signature': sign(SECRET, reworded) });
    expect(await third.json()).toMatchObject({ duplicate: false, applied: 0, stale: 1 });
    expect(count(h.db, 'webhook_deliveries')).toBe(2);
    expect(row(h.db, 'authentications', id!)).toEqual(stored);
  });

  it('each webhook must be signed with its own secret, else the default', async () => {
    const own = new Secret('own-secret-for-wh-own-1234');
    const fallback = new Secret('default-secret-for-others-99');
    const { sim, h } = await setup({ secrets: { byUuid: { 'wh-own': own }, defaultSecret: fallback } });
    const [a, b] = goodIds(sim, 'authentications', 2);
    const cases: Array<[string, string, Secret, number]> = [
      [a!, 'wh-own', fallback, 401],
      [a!, 'wh-own', own, 200],
      [b!, 'wh-other', own, 401],
      [b!, 'wh-other', fallback, 200],
    ];
    for (const [id, uuid, secret, status] of cases) {
      const body = deliveryBody(sim, id, uuid, { channel: `ch-${uuid}` });
      expect(
        (await post(h.url, body, { 'Service-Signature': sign(secret, body) })).status,
        `${uuid} signed with the ${secret === own ? 'own' : 'default'} secret`,
      ).toBe(status);
    }
    expect(query(h.db, 'SELECT webhook_uuid, channel FROM webhook_deliveries ORDER BY webhook_uuid')).toEqual([
      { webhook_uuid: 'wh-other', channel: 'ch-wh-other' },
      { webhook_uuid: 'wh-own', channel: 'ch-wh-own' },
    ]);
  });

  it('without a default secret, a webhook without its own secret is refused', async () => {
    const own = new Secret('own-secret-for-wh-own-1234');
    const { sim, h } = await setup({ secrets: { byUuid: { 'wh-own': own }, defaultSecret: undefined } });
    const [id] = goodIds(sim, 'authentications', 1);
    const body = deliveryBody(sim, id!, 'wh-other');
    expect((await post(h.url, body, { 'Service-Signature': sign(own, body) })).status).toBe(401);
    expect(count(h.db, 'webhook_deliveries')).toBe(0);
  });
});

describe('the other routes', () => {
  it('GET /healthz and the domain verification pages', async () => {
    const { h } = await setup({ domainVerifications: { 'tok-123': 'the-operators-long-random-string' } });
    const health = await fetch(`${h.server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const page = await fetch(`${h.server.url}/.well-known/service-domain-verification/tok-123`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await page.text()).toBe('the-operators-long-random-string');
    expect((await fetch(`${h.server.url}/.well-known/service-domain-verification/tok-124`)).status).toBe(404);
    expect(
      (await fetch(`${h.server.url}/.well-known/service-domain-verification/tok-123`, { method: 'POST', body: 'x' }))
        .status,
    ).toBe(404);
  });
});
