import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { call, crawl, itemsOf } from './http.js';

type Item = Record<string, unknown>;
let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({
    sessions: 800,
    otherOwnerSessions: 300,
    rate: 100_000,
    tokens: { 'test-token': 'alice', 'bob-token': 'bob' },
  });
});
afterAll(() => sim.close());

const username = (i: Item): string => (i.owner as { user: { username: string } }).user.username;

describe('ownership', () => {
  it("never returns another owner's sessions, and answers 403 for them by id", async () => {
    const items = [
      ...itemsOf(await crawl(sim, '/v1/search/authentications')),
      ...itemsOf(await crawl(sim, '/v1/search/fingerprints')),
    ];
    expect(items.length).toBe(800);
    expect(items.every((i) => username(i) === 'alice')).toBe(true);

    const mallorys = sim.world.serviceIds('mallory', 'authentications');
    expect(mallorys.length).toBeGreaterThan(0);
    const res = await call(sim, 'GET', `/v1/authentications/${mallorys[0]}`);
    expect(res.status).toBe(403);
    const missing = await call(sim, 'GET', '/v1/authentications/NOSUCHID');
    expect(missing.status).toBe(403);
    expect(missing.json).toEqual(res.json);
  });

  it('several tokens are separate accounts', async () => {
    const bob = itemsOf(await crawl(sim, '/v1/search/authentications', {}, { token: 'bob-token' }));
    expect(bob.length).toBe(sim.world.count('bob', 'authentications'));
    expect(bob.every((i) => username(i) === 'bob')).toBe(true);
    const aliceId = sim.world.serviceIds('alice', 'authentications')[0];
    expect((await call(sim, 'GET', `/v1/authentications/${aliceId}`, { token: 'bob-token' })).status).toBe(403);
  });

  it('removeAccess takes a session away from its owner', async () => {
    const id = sim.world.serviceIds('alice', 'authentications')[5] as string;
    expect((await call(sim, 'GET', `/v1/authentications/${id}`)).status).toBe(200);
    const counter = sim.world.get(id)?.updateCounter ?? 0;
    sim.world.removeAccess(id);
    expect((await call(sim, 'GET', `/v1/authentications/${id}`)).status).toBe(403);
    expect(sim.world.get(id)?.updateCounter).toBe(counter + 1);
    const ids = itemsOf(await crawl(sim, '/v1/search/authentications')).map((i) => i.service_id);
    expect(ids).not.toContain(id);
  });

  it('an authentication id on the fingerprint route is 403', async () => {
    const id = sim.world.serviceIds('alice', 'authentications')[0];
    expect((await call(sim, 'GET', `/v1/fingerprints/${id}`)).status).toBe(403);
  });
});

describe('fingerprint parents', () => {
  it('a parent owned by someone else: empty fingerprint_parent and a warning, on GET and on the page', async () => {
    const partial = sim.world.truth('test-token', 'fingerprints').filter((i) => {
      const parent = i.fingerprint_parent as Item | undefined;
      return parent !== undefined && Object.keys(parent).length === 0;
    });
    expect(partial.length).toBeGreaterThan(0);
    const id = partial[0]?.service_id as string;
    const got = await call(sim, 'GET', `/v1/fingerprints/${id}`);
    expect(got.status).toBe(200);
    expect((got.json.item as Item).fingerprint_parent).toEqual({});
    expect(got.json.warnings).toEqual([
      expect.objectContaining({ code: 'fingerprint_parent_not_authorized', message: expect.any(String) }),
    ]);

    const pages = await crawl(sim, '/v1/search/fingerprints');
    const page = pages.find((p) => (p.items as Item[]).some((i) => i.service_id === id)) as Item;
    expect(page.warnings).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'fingerprint_parent_not_authorized' })]),
    );
    const clean = pages.filter((p) =>
      (p.items as Item[]).every(
        (i) =>
          (i.fingerprint_parent as Item | undefined) === undefined ||
          Object.keys(i.fingerprint_parent as Item).length > 0,
      ),
    );
    expect(clean.every((p) => p.warnings === undefined)).toBe(true);
  });

  it('a full parent carries activity, service_id, customer_item_id and url', async () => {
    const compare = sim.world
      .truth('test-token', 'fingerprints')
      .find((i) => Object.keys((i.fingerprint_parent as Item | undefined) ?? {}).length > 0) as Item;
    const parent = compare.fingerprint_parent as { service_id: string; url: string; activity: Item; text_fields: Item };
    expect(parent.activity).toEqual({ form_factor: expect.any(String), mode: 'register', name: 'fingerprint' });
    expect(parent.text_fields.customer_item_id).toEqual(expect.any(String));
    const res = await fetch(parent.url, { headers: { 'Api-Version': '1.4', Authorization: 'Token test-token' } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { item: Item }).item.service_id).toBe(parent.service_id);
  });

  it('moving the parent away makes the child partial', async () => {
    const compare = sim.world
      .truth('test-token', 'fingerprints')
      .find((i) => Object.keys((i.fingerprint_parent as Item | undefined) ?? {}).length > 0) as Item;
    const parentId = (compare.fingerprint_parent as { service_id: string }).service_id;
    sim.world.removeAccess(parentId);
    const got = await call(sim, 'GET', `/v1/fingerprints/${String(compare.service_id)}`);
    expect((got.json.item as Item).fingerprint_parent).toEqual({});
    expect(got.json.warnings).toBeDefined();
  });
});

describe('items', () => {
  it('authentication items carry every field of the spec table', async () => {
    const id = sim.world.serviceIds('alice', 'authentications')[0];
    const { json } = await call(sim, 'GET', `/v1/authentications/${id}?format_options__return_item_photos=true`);
    const item = json.item as Item;
    expect(item).toMatchObject({
      service_id: id,
      activity: {
        name: 'authentication',
        form_factor: expect.any(String),
        product_category: expect.any(String),
        product_group: expect.any(String),
      },
      certificate: { preview: expect.stringMatching(/^https:/), site: expect.stringMatching(/^https:/) },
      owner: { organization: { name: expect.any(String) }, user: { username: 'alice' } },
      properties: {
        brand: { id: expect.any(String), display: expect.any(String) },
        material: { id: expect.any(String), display: expect.any(String) },
      },
      status: { result: { id: expect.any(String), display: expect.any(String), final: expect.any(Boolean) } },
      text_fields: {
        customer_item_id: expect.any(String),
        identifier: expect.any(String),
        style_code: expect.any(String),
        us_size: expect.any(String),
      },
      timestamp: {
        display: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
        epoch: expect.any(Number),
      },
      images: { photos: expect.any(Array) },
    });
    expect('flag' in (item.status as Item)).toBe(true);
    const display = (item.timestamp as { display: string }).display;
    const epoch = (item.timestamp as { epoch: number }).epoch;
    expect(Date.parse(display) / 1000).toBeCloseTo(epoch, 2);
  });

  it('some items carry keys the spec does not list', () => {
    expect(sim.world.truth().some((i) => 'labels' in i)).toBe(true);
  });

  it('Accept-Language: ja changes display strings', async () => {
    const id = sim.world.serviceIds('alice', 'authentications').find((s) => sim.world.get(s)?.final === true);
    const en = (await call(sim, 'GET', `/v1/authentications/${id}`)).json.item as Item;
    const ja = (await call(sim, 'GET', `/v1/authentications/${id}`, { language: 'ja' })).json.item as Item;
    expect((ja.properties as { brand: { display: string } }).brand.display).not.toBe(
      (en.properties as { brand: { display: string } }).brand.display,
    );
    expect((ja.status as { result: { display: string } }).result.display).not.toBe(
      (en.status as { result: { display: string } }).result.display,
    );
    expect({ ...ja, properties: null, status: null }).toEqual({ ...en, properties: null, status: null });
  });

  it('injected bad items come back malformed and stay out of the truth', async () => {
    const bad = sim.world.injectBadItem('authentications', 'epoch_string');
    const missing = sim.world.injectBadItem('authentications', 'missing_service_id');
    const page = await call(sim, 'POST', '/v1/search/authentications', { body: { limit: 5 } });
    const items = page.json.items as Item[];
    const stringEpoch = items.find((i) => i.service_id === bad.serviceId) as Item;
    expect(typeof (stringEpoch.timestamp as { epoch: unknown }).epoch).toBe('string');
    expect(items.some((i) => !('service_id' in i))).toBe(true);
    const truthIds = sim.world.truth().map((i) => i.service_id);
    expect(truthIds).not.toContain(bad.serviceId);
    expect(truthIds).not.toContain(missing.serviceId);
  });
});

describe('lookup', () => {
  it('v1.4: the first final match, else the latest non-final; v2: the latest', async () => {
    const cid = 'ORD-LOOKUP-1';
    sim.world.addSession({ customerItemId: cid, epoch: 1_780_000_000, final: false });
    const firstFinal = sim.world.addSession({ customerItemId: cid, epoch: 1_780_000_100, final: true });
    sim.world.addSession({ customerItemId: cid, epoch: 1_780_000_200, final: true });
    const latest = sim.world.addSession({ customerItemId: cid, epoch: 1_780_000_300, final: false });
    const v1 = await call(sim, 'GET', `/v1/lookup/authentications/${cid}`);
    expect((v1.json.item as Item).service_id).toBe(firstFinal.serviceId);
    const v2 = await call(sim, 'GET', `/v2/lookup/authentications/${cid}`);
    expect((v2.json.item as Item).service_id).toBe(latest.serviceId);

    const cid2 = 'ORD-LOOKUP-2';
    sim.world.addSession({ customerItemId: cid2, epoch: 1_780_000_000, final: false });
    const newest = sim.world.addSession({ customerItemId: cid2, epoch: 1_780_000_500, final: false });
    expect(((await call(sim, 'GET', `/v1/lookup/authentications/${cid2}`)).json.item as Item).service_id).toBe(
      newest.serviceId,
    );
    expect((await call(sim, 'GET', '/v1/lookup/authentications/NOPE')).status).toBe(403);
    expect((await call(sim, 'GET', '/v2/lookup/authentications/NOPE')).status).toBe(404);
  });
});
