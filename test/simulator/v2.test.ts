import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { call, crawl, itemsOf } from './http.js';

type Item = Record<string, unknown>;
let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ sessions: 300, rate: 100_000, catalogUnavailableShare: 0 });
});
afterAll(() => sim.close());

const ISO_MICROS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

describe('v2', () => {
  it('authentication item shape (brand a string) with images on request', async () => {
    const id = sim.world.serviceIds('alice', 'authentications').find((s) => sim.world.get(s)?.final === true);
    const res = await call(sim, 'GET', `/v2/authentications/${id}?include_images=true&include_catalog=true`);
    expect(res.status).toBe(200);
    expect(res.json.item).toMatchObject({
      service_id: id,
      timestamp: { created_at: expect.stringMatching(ISO_MICROS) },
      status: {
        result: { id: expect.any(String), final: true, display: expect.any(String) },
        initial_result: expect.any(Object),
      },
      activity: { form_factor: expect.any(String), name: 'authentication', mode: null },
      properties: { customer_item_id: expect.any(String), brand: expect.any(String) },
      owner: { organization_id: expect.any(String), user_id: expect.any(String) },
      certificate: { certificate_id: expect.any(String) },
      catalog: null,
      fingerprint_parent: null,
    });
    const images = (res.json.item as Item).images as Record<string, { url: string; metadata: Item }>;
    expect(Object.values(images).every((i) => typeof i.url === 'string' && typeof i.metadata === 'object')).toBe(true);
  });

  it('fingerprint item shape (brand an object, parent with relationship_type)', async () => {
    const compareId = sim.world.serviceIds('alice', 'fingerprints').find((s) => sim.world.get(s)?.mode === 'compare');
    const res = await call(sim, 'GET', `/v2/fingerprints/${compareId}`);
    expect(res.json.item).toMatchObject({
      activity: { name: 'fingerprint', mode: 'compare', product_category: null },
      properties: {
        brand: { id: expect.any(String), name: expect.any(String) },
        device_id: expect.any(String),
        app_version: expect.any(String),
      },
      fingerprint_parent: { service_id: expect.any(String), relationship_type: expect.any(String) },
    });
  });

  it('404 for missing and not-owned sessions', async () => {
    const mallory = sim.world.serviceIds('mallory', 'authentications')[0];
    expect((await call(sim, 'GET', `/v2/authentications/${mallory}`)).status).toBe(404);
    expect((await call(sim, 'GET', '/v2/authentications/NOSUCH')).status).toBe(404);
    expect((await call(sim, 'GET', '/v2/fingerprints/NOSUCH')).status).toBe(404);
  });

  it('search: default limit 10, max 25, pages to the end like v1.4', async () => {
    const first = await call(sim, 'POST', '/v2/search/authentications', { body: {} });
    expect(first.json.item_count).toBe(10);
    expect((await call(sim, 'POST', '/v2/search/authentications', { body: { limit: 26 } })).status).toBe(400);
    const all = itemsOf(await crawl(sim, '/v2/search/authentications', { limit: 25, extra_property: true }));
    expect(all.map((i) => i.service_id)).toEqual(sim.world.serviceIds('alice', 'authentications'));
    expect(all).toEqual(sim.world.truthV2('test-token', 'authentications'));
  });

  it('authentication config and supported catalog', async () => {
    const config = await call(sim, 'GET', '/v2/authentication-config');
    expect(config.json).toMatchObject({ iat: expect.any(Number), exp: expect.any(Number) });
    const brand = (config.json.config as { brands: Item[] }).brands[0];
    expect(brand).toMatchObject({
      brand_id: expect.any(String),
      display: { name: expect.any(String) },
      materials: expect.any(Array),
      details: expect.any(Array),
    });
    const catalog = await call(sim, 'GET', '/v2/supported-catalog');
    expect((catalog.json.categories as Item[])[0]).toMatchObject({
      product_category: 'luxury',
      customer_product_group: expect.any(String),
      display: expect.any(Object),
      brands: expect.any(Array),
    });
  });

  it('supported catalog may answer 503', async () => {
    const flaky = await startSimulator({ sessions: 5, rate: 1000, catalogUnavailableShare: 1 });
    try {
      expect((await call(flaky, 'GET', '/v2/supported-catalog')).status).toBe(503);
    } finally {
      await flaky.close();
    }
  });

  it('login vouchers: 200, then 409 for the same user, 400 for a bad body', async () => {
    const body = { unique_user_id: 'u-1', email: 'u1@example.com', first_name: 'U', last_name: null };
    const first = await call(sim, 'POST', '/v2/login-vouchers', { body });
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ login_voucher: expect.any(String), username: expect.any(String) });
    expect((await call(sim, 'POST', '/v2/login-vouchers', { body })).status).toBe(409);
    expect((await call(sim, 'POST', '/v2/login-vouchers', { body: { unique_user_id: 'u-2' } })).status).toBe(400);
  });

  it('domains and webhooks routes under /v2', async () => {
    const domains = await call(sim, 'POST', '/v2/search/domains', { body: {} });
    expect((domains.json.items as Item[]).map((d) => d.domain_name)).toEqual([
      'hooks.example.com',
      '127.0.0.1',
      'localhost',
    ]);
    const created = await call(sim, 'POST', '/v2/webhooks', {
      body: {
        endpoint: { type: 'url', value: 'https://hooks.example.com/in' },
        secret_key: 'x'.repeat(24),
        filters: [{ key: 'activity.name', value: 'authentication' }],
      },
    });
    expect(created.status).toBe(200);
    const uuid = created.json.webhook_uuid as string;
    expect((await call(sim, 'GET', `/v2/webhooks/${uuid}`)).json.webhook_uuid).toBe(uuid);
    expect((await call(sim, 'GET', '/v2/webhooks/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await call(sim, 'POST', `/v2/webhooks/${uuid}/deactivate`)).json).toEqual({ status: 'ok' });
  });
});
