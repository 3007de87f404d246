import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { call } from './http.js';

type Item = Record<string, unknown>;
const SECRET = 'a-webhook-secret-of-32-characters!';

interface Received {
  body: Item;
  signatureOk: boolean;
}

/**
 * A plain receiver that verifies the signature and answers with the next scripted status (200 once the script runs
 * out).
 */
async function startReceiver(script: number[] = []): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const header = String(req.headers['service-signature'] ?? '');
      const [scheme, signature] = header.split(':');
      const expected = createHmac('sha256', SECRET).update(raw).digest();
      const given = Buffer.from(signature ?? '', 'base64');
      const signatureOk = scheme === 'SHA256' && given.length === expected.length && timingSafeEqual(given, expected);
      received.push({ body: JSON.parse(raw.toString('utf8')) as Item, signatureOk });
      res.writeHead(script.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, server };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setup(options: Parameters<typeof startSimulator>[0] = {}): Promise<RunningSimulator> {
  const sim = await startSimulator({ sessions: 100, rate: 100_000, webhookRetryBaseMs: 5, ...options });
  closers.push(() => sim.close());
  return sim;
}

async function receiver(script?: number[]): Promise<Awaited<ReturnType<typeof startReceiver>>> {
  const r = await startReceiver(script);
  closers.push(() => new Promise((resolve) => r.server.close(() => resolve())));
  return r;
}

const createBody = (
  url: string,
  filters: Item[] = [{ key: 'activity.name', value: 'authentication' }],
  extra: Item = {},
): Item => ({
  endpoint: { type: 'url', value: url },
  secret_key: SECRET,
  filters,
  ...extra,
});

describe('webhook creation', () => {
  it.each([
    ['endpoint type not url', 400, { endpoint: { type: 'email', value: 'https://hooks.example.com/x' } }],
    ['plain http on a public host', 400, { endpoint: { type: 'url', value: 'http://hooks.example.com/x' } }],
    ['secret shorter than 20', 400, { secret_key: 'short' }],
    ['no activity.name filter', 400, { filters: [{ key: 'activity.form_factor', value: 'lightbox' }] }],
    ['unregistered domain', 403, { endpoint: { type: 'url', value: 'https://evil.example.net/x' } }],
    [
      'username outside the organization',
      403,
      {
        filters: [
          { key: 'activity.name', value: 'authentication' },
          { key: 'owner.user.username', value: 'mallory' },
        ],
      },
    ],
  ])('%s -> %i', async (_name, status, override) => {
    const sim = await setup();
    const res = await call(sim, 'POST', '/v1/webhooks', {
      body: { ...createBody('https://hooks.example.com/in'), ...override },
    });
    expect(res.status).toBe(status);
    expect(res.text).not.toContain(SECRET);
  });

  it('malformed JSON -> 400; versions 1.3 and above accepted, 1.2 not', async () => {
    const sim = await setup();
    expect((await call(sim, 'POST', '/v1/webhooks', { rawBody: '{' })).status).toBe(400);
    expect(
      (await call(sim, 'POST', '/v1/webhooks', { body: createBody('https://hooks.example.com/a'), version: '1.2' }))
        .status,
    ).toBe(400);
    expect(
      (await call(sim, 'POST', '/v1/webhooks', { body: createBody('https://hooks.example.com/a'), version: '1.3' }))
        .status,
    ).toBe(200);
  });

  it('10 active webhooks at most (409 on the 11th); deactivating frees a place; search lists active ones', async () => {
    const sim = await setup();
    const uuids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await call(sim, 'POST', '/v1/webhooks', {
        body: createBody(`https://hooks.example.com/${i}`, undefined, { channel: `c${i}` }),
      });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({
        webhook_uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        channel: `c${i}`,
        endpoint: { type: 'url', value: `https://hooks.example.com/${i}` },
        create_timestamp: { display: expect.any(String), epoch: expect.any(Number) },
        webhook_owner: { organization: { name: expect.any(String) }, user: { username: 'alice' } },
      });
      expect(JSON.stringify(res.json)).not.toContain(SECRET);
      uuids.push(res.json.webhook_uuid as string);
    }
    expect((await call(sim, 'POST', '/v1/webhooks', { body: createBody('https://hooks.example.com/11') })).status).toBe(
      409,
    );
    const listed = await call(sim, 'POST', '/v1/search/webhooks', { body: { limit: 4 } });
    expect(listed.json.item_count).toBe(4);
    expect(listed.json.next_cursor).not.toBeNull();
    expect((await call(sim, 'POST', `/v1/webhooks/${uuids[0]}/deactivate`)).json).toEqual({ status: 'ok' });
    expect((await call(sim, 'POST', `/v1/webhooks/${uuids[0]}/deactivate`)).status).toBe(403);
    const all = await call(sim, 'POST', '/v1/search/webhooks', { body: {} });
    expect((all.json.items as Item[]).map((w) => w.webhook_uuid)).toEqual(uuids.slice(1));
    expect((await call(sim, 'POST', '/v1/webhooks', { body: createBody('https://hooks.example.com/11') })).status).toBe(
      200,
    );
    expect((await call(sim, 'GET', '/v1/webhooks/00000000-0000-4000-8000-000000000000')).status).toBe(403);
  });

  it('another account cannot see or deactivate the webhook', async () => {
    const sim = await setup({ tokens: { 'test-token': 'alice', bob: 'bob' } });
    const res = await call(sim, 'POST', '/v1/webhooks', { body: createBody('https://hooks.example.com/in') });
    const uuid = res.json.webhook_uuid as string;
    expect((await call(sim, 'GET', `/v1/webhooks/${uuid}`, { token: 'bob' })).status).toBe(403);
    expect((await call(sim, 'POST', `/v1/webhooks/${uuid}/deactivate`, { token: 'bob' })).status).toBe(403);
    expect((await call(sim, 'POST', '/v1/search/webhooks', { token: 'bob', body: {} })).json.item_count).toBe(0);
  });

  it('domains search lists the registered domains', async () => {
    const sim = await setup();
    const res = await call(sim, 'POST', '/v1/search/domains', { body: {} });
    expect(res.json).toMatchObject({ item_count: 3, next_cursor: null });
    expect((res.json.items as Item[])[0]).toMatchObject({
      domain_uuid: expect.any(String),
      domain_name: 'hooks.example.com',
      domain_owner: { organization: { name: expect.any(String) }, user: { username: 'alice' } },
      create_timestamp: { display: expect.any(String), epoch: expect.any(Number) },
    });
  });
});

describe('webhook deliveries', () => {
  it('a mutation produces a signed delivery with update_counter; non-matching sessions produce none', async () => {
    const sim = await setup();
    const hook = await receiver();
    const created = await call(sim, 'POST', '/v1/webhooks', {
      body: createBody(hook.url, undefined, { channel: 'orders' }),
    });
    const nonFinal = sim.world.addSession({ final: false });
    sim.world.addSession({ resource: 'fingerprints' }); // filtered out by activity.name
    sim.world.finalize(nonFinal.serviceId, 'authentic');
    await sim.deliveries.settled();
    expect(hook.received.map((r) => r.signatureOk)).toEqual([true, true]);
    const [first, second] = hook.received.map((r) => r.body);
    expect(first).toMatchObject({ channel: 'orders', webhook_uuid: created.json.webhook_uuid, item_count: 1 });
    const items = [first, second].map((b) => (b?.items as Item[])[0] as Item);
    expect(items.map((i) => i.service_id)).toEqual([nonFinal.serviceId, nonFinal.serviceId]);
    expect(items.map((i) => i.update_counter)).toEqual([1, 2]);
    expect((items[1]?.status as { result: { final: boolean } }).result.final).toBe(true);
    expect(sim.stats.deliveries).toMatchObject({ attempted: 2, succeeded: 2, failed: 0 });
  });

  it('fingerprint deliveries omit fingerprint_parent', async () => {
    const sim = await setup();
    const hook = await receiver();
    await call(sim, 'POST', '/v1/webhooks', {
      body: createBody(hook.url, [{ key: 'activity.name', value: 'fingerprint' }]),
    });
    const compare = sim.world.addSession({ resource: 'fingerprints', mode: 'compare' });
    expect(compare.parentId).not.toBeNull();
    await sim.deliveries.settled();
    const item = (hook.received[0]?.body.items as Item[])[0] as Item;
    expect(item.activity).toMatchObject({ mode: 'compare' });
    expect('fingerprint_parent' in item).toBe(false);
  });

  it('a receiver answering 500 first gets a retry; one that always fails is given up on', async () => {
    const sim = await setup({ webhookMaxAttempts: 3 });
    const flaky = await receiver([500]);
    await call(sim, 'POST', '/v1/webhooks', { body: createBody(flaky.url) });
    sim.world.addSession();
    await sim.deliveries.settled();
    expect(flaky.received.length).toBe(2);
    expect(flaky.received[1]?.body).toEqual(flaky.received[0]?.body);
    expect(sim.stats.deliveries).toMatchObject({
      attempted: 2,
      succeeded: 1,
      failed: 1,
      failuresByStatus: { '500': 1 },
    });

    const broken = await receiver([503, 503, 503, 503]);
    await call(sim, 'POST', '/v1/webhooks', {
      body: createBody(broken.url, [{ key: 'activity.name', value: 'fingerprint' }]),
    });
    sim.world.addSession({ resource: 'fingerprints' });
    await sim.deliveries.settled();
    expect(broken.received.length).toBe(3);
    expect(sim.stats.deliveries.gaveUp).toBe(1);
  });

  it('held deliveries released in reverse arrive with lower counters after higher ones', async () => {
    const sim = await setup();
    const hook = await receiver();
    await call(sim, 'POST', '/v1/webhooks', { body: createBody(hook.url) });
    sim.deliveries.pause();
    const session = sim.world.addSession({ final: false });
    sim.world.setResult(session.serviceId, 'unidentified', false);
    sim.world.finalize(session.serviceId);
    sim.deliveries.resume('reverse');
    await sim.deliveries.settled();
    const counters = hook.received.map((r) => ((r.body.items as Item[])[0] as Item).update_counter);
    expect(counters).toEqual([3, 2, 1]);
  });

  it('removeAccess notifies the new owner, not the old one', async () => {
    const sim = await setup();
    const hook = await receiver();
    await call(sim, 'POST', '/v1/webhooks', { body: createBody(hook.url) });
    sim.world.removeAccess(sim.world.serviceIds()[0] as string);
    await sim.deliveries.settled();
    expect(hook.received).toEqual([]);
  });

  it('a webhook filtered on form factor hears only those sessions', async () => {
    const sim = await setup();
    const hook = await receiver();
    await call(sim, 'POST', '/v1/webhooks', {
      body: createBody(hook.url, [
        { key: 'activity.name', value: 'authentication' },
        { key: 'activity.form_factor', values: ['lightbox'] },
      ]),
    });
    const lightbox = sim.world.addSession({ formFactor: 'lightbox' });
    sim.world.addSession({ formFactor: 'microscopic' });
    await sim.deliveries.settled();
    expect(hook.received.map((r) => ((r.body.items as Item[])[0] as Item).service_id)).toEqual([lightbox.serviceId]);
  });
});
