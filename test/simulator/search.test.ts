import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { call, crawl, epochOf, itemsOf } from './http.js';

type Item = Record<string, unknown>;
let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ sessions: 600, rate: 100_000, seed: 7 });
});
afterAll(() => sim.close());

const AUTH = '/v1/search/authentications';

/** Strictly newest first by (epoch, service_id). */
function assertNewestFirst(items: Item[]): void {
  for (let i = 1; i < items.length; i++) {
    const a = items[i - 1] as Item;
    const b = items[i] as Item;
    const order = epochOf(a) - epochOf(b) || (String(a.service_id) > String(b.service_id) ? 1 : -1);
    expect(order, `items ${i - 1} and ${i}`).toBeGreaterThan(0);
  }
}

describe('paging', () => {
  it('covers every visible session exactly once, newest first, in pages of at most 25', async () => {
    for (const [path, resource] of [
      [AUTH, 'authentications'],
      ['/v1/search/fingerprints', 'fingerprints'],
    ] as const) {
      const pages = await crawl(sim, path);
      const items = itemsOf(pages);
      for (const page of pages) {
        expect(page.item_count).toBe((page.items as Item[]).length);
        expect((page.items as Item[]).length).toBeLessThanOrEqual(25);
      }
      const ids = items.map((i) => i.service_id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual(sim.world.serviceIds('alice', resource));
      expect(items).toEqual(sim.world.truth('test-token', resource));
      assertNewestFirst(items);
    }
  });

  it('keeps a keyset cursor stable when sessions are added while paging', async () => {
    const before = sim.world.serviceIds('alice', 'authentications');
    const first = await call(sim, 'POST', AUTH, { body: { limit: 10 } });
    const firstIds = (first.json.items as Item[]).map((i) => i.service_id);
    // A new session newest of all, and one in the middle of what is still to come.
    sim.world.addSession({ epoch: 1_800_000_000 });
    const middle = sim.world.addSession({ epoch: epochOf((first.json.items as Item[])[9] as Item) - 1000 });
    let cursor = first.json.next_cursor as string | null;
    const seen: unknown[] = [...firstIds];
    while (cursor !== null) {
      const page = await call(sim, 'POST', AUTH, { body: { limit: 10, cursor } });
      seen.push(...(page.json.items as Item[]).map((i) => i.service_id));
      cursor = page.json.next_cursor as string | null;
    }
    // Nothing skipped, nothing twice; the mid-range insert is found, the newer one is behind the cursor.
    expect(seen).toEqual([...before.slice(0, 10), ...[...before.slice(10), middle.serviceId].sort(byWorldOrder)]);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('returns service ids only when asked', async () => {
    const res = await call(sim, 'POST', AUTH, { body: { return: 'service_ids', limit: 5 } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['next_cursor', 'service_id_count', 'service_ids']);
    expect(res.json.service_id_count).toBe(5);
    expect(res.json.service_ids).toEqual(sim.world.serviceIds('alice', 'authentications').slice(0, 5));
  });

  it('rejects a cursor of another query', async () => {
    const first = await call(sim, 'POST', AUTH, { body: { limit: 5 } });
    const other = await call(sim, 'POST', AUTH, {
      body: { cursor: first.json.next_cursor, filters: [{ key: 'status.result.id', value: 'authentic' }] },
    });
    expect(other.status).toBe(400);
    expect((await call(sim, 'POST', AUTH, { body: { cursor: 'garbage' } })).status).toBe(400);
  });
});

function byWorldOrder(a: string, b: string): number {
  const ra = sim.world.get(a);
  const rb = sim.world.get(b);
  if (ra === undefined || rb === undefined) throw new Error('unknown id');
  return rb.createdMicros - ra.createdMicros || (rb.serviceId > ra.serviceId ? 1 : -1);
}

describe('body validation', () => {
  it.each([
    ['limit 26', { limit: 26 }],
    ['limit 0', { limit: 0 }],
    ['unknown filter key', { filters: [{ key: 'activity.mode', value: 'register' }] }],
    ['both value and values', { filters: [{ key: 'status.flag', value: 'a', values: ['b'] }] }],
    ['neither value nor values', { filters: [{ key: 'status.flag' }] }],
    ['identifier without brand', { filters: [{ key: 'text_fields.identifier', value: 'x' }] }],
    ['non-integer range', { range: { start: 1.5, end: null } }],
    ['bad return', { return: 'everything' }],
  ])('%s -> 400', async (_name, body) => {
    const res = await call(sim, 'POST', AUTH, { body });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: { code: 'invalid_request' } });
  });

  it('malformed JSON -> 400', async () => {
    expect((await call(sim, 'POST', AUTH, { rawBody: '{"limit": ' })).status).toBe(400);
  });

  it('accepts identifier with a brand filter, and fingerprint keys on the fingerprint search', async () => {
    const ok1 = await call(sim, 'POST', AUTH, {
      body: {
        filters: [
          { key: 'text_fields.identifier', value: 'x' },
          { key: 'properties.brand.id', value: 'chanel' },
        ],
      },
    });
    expect(ok1.status).toBe(200);
    const ok2 = await call(sim, 'POST', '/v1/search/fingerprints', {
      body: { filters: [{ key: 'activity.mode', value: 'register' }] },
    });
    expect(ok2.status).toBe(200);
  });
});

describe('filters', () => {
  const all = (): Item[] => sim.world.truth('test-token', 'authentications');

  it('value, values and exclude', async () => {
    const authentic = itemsOf(await crawl(sim, AUTH, { filters: [{ key: 'status.result.id', value: 'authentic' }] }));
    expect(authentic.length).toBe(
      all().filter((i) => (i.status as { result: { id: string } }).result.id === 'authentic').length,
    );
    expect(authentic.length).toBeGreaterThan(0);

    const brands = itemsOf(
      await crawl(sim, AUTH, { filters: [{ key: 'properties.brand.id', values: ['chanel', 'gucci'] }] }),
    );
    const brandOf = (i: Item): string => (i.properties as { brand: { id: string } }).brand.id;
    expect(brands.length).toBe(all().filter((i) => ['chanel', 'gucci'].includes(brandOf(i))).length);
    expect(brands.every((i) => ['chanel', 'gucci'].includes(brandOf(i)))).toBe(true);

    const notChanel = itemsOf(
      await crawl(sim, AUTH, { filters: [{ key: 'properties.brand.id', value: 'chanel', exclude: true }] }),
    );
    expect(notChanel.length).toBe(all().filter((i) => brandOf(i) !== 'chanel').length);
  });

  it('text fields: canonical ignores case and punctuation, verbatim does not', async () => {
    const target = all()[3] as Item;
    const id = (target.text_fields as { customer_item_id: string }).customer_item_id; // e.g. ORD-012345-K
    const mangled = id.toLowerCase().replace(/-/g, ' ');
    const canonical = itemsOf(
      await crawl(sim, AUTH, { filters: [{ key: 'text_fields.customer_item_id', value: mangled }] }),
    );
    expect(canonical.map((i) => i.service_id)).toContain(target.service_id);
    const verbatimMiss = itemsOf(
      await crawl(sim, AUTH, {
        filters: [{ key: 'text_fields.customer_item_id', value: mangled, text_fields: 'verbatim' }],
      }),
    );
    expect(verbatimMiss).toEqual([]);
    const verbatimHit = itemsOf(
      await crawl(sim, AUTH, {
        filters: [{ key: 'text_fields.customer_item_id', value: id, text_fields: 'verbatim' }],
      }),
    );
    expect(verbatimHit.map((i) => i.service_id)).toContain(target.service_id);
  });

  it('fingerprint filters on the parent', async () => {
    const compare = sim.world.truth('test-token', 'fingerprints').find((i) => {
      const parent = i.fingerprint_parent as { service_id?: string } | undefined;
      return parent?.service_id !== undefined;
    }) as Item;
    const parentId = (compare.fingerprint_parent as { service_id: string }).service_id;
    const children = itemsOf(
      await crawl(sim, '/v1/search/fingerprints', {
        filters: [{ key: 'fingerprint_parent.service_id', value: parentId }],
      }),
    );
    expect(children.map((i) => i.service_id)).toContain(compare.service_id);
    expect(children.every((i) => (i.fingerprint_parent as { service_id: string }).service_id === parentId)).toBe(true);
  });
});

describe('array cursors (cursorStyle array)', () => {
  let arrays: RunningSimulator;
  beforeAll(async () => {
    arrays = await startSimulator({ sessions: 300, rate: 100_000, seed: 7, cursorStyle: 'array' });
  });
  afterAll(() => arrays.close());

  it('pages every session with arrays of strings, ending on null or [], and records what it got back', async () => {
    const ends = new Set<string>();
    let crawls = 1;
    // One search per month of the history: different queries end differently.
    const to = 1_790_000_000;
    for (let start = to - 365 * 86_400; start < to; start += 30 * 86_400) {
      const pages = await crawl(arrays, AUTH, { range: { start, end: start + 30 * 86_400 } });
      for (const page of pages.slice(0, -1)) {
        expect(Array.isArray(page.next_cursor)).toBe(true);
        expect((page.next_cursor as unknown[]).every((p) => typeof p === 'string')).toBe(true);
      }
      ends.add(JSON.stringify(pages[pages.length - 1]!.next_cursor));
      crawls++;
    }
    expect([...ends].sort()).toEqual(['[]', 'null']);
    const all = itemsOf(await crawl(arrays, AUTH));
    expect(all.map((i) => i.service_id)).toEqual(arrays.world.serviceIds('alice', 'authentications'));
    const sent = arrays.stats.searches.map((s) => s.cursor);
    // Each crawl's first page asked without a cursor; every other page with the array it was given.
    expect(sent.filter((c) => c === null).length).toBe(crawls);
    expect(sent.filter((c) => c !== null).length).toBeGreaterThan(0);
    expect(sent.every((c) => c === null || Array.isArray(c))).toBe(true);
    expect(arrays.stats.searches.every((s) => s.route === `POST ${AUTH}`)).toBe(true);
  });

  it('refuses an array cursor sent back as a string, or a cursor of the string style (400)', async () => {
    const first = await call(arrays, 'POST', AUTH, { body: { limit: 5 } });
    const cursor = first.json.next_cursor as string[];
    expect((await call(arrays, 'POST', AUTH, { body: { limit: 5, cursor } })).status).toBe(200);
    expect((await call(arrays, 'POST', AUTH, { body: { limit: 5, cursor: JSON.stringify(cursor) } })).status).toBe(400);
    expect((await call(arrays, 'POST', AUTH, { body: { limit: 5, cursor: cursor.join('') } })).status).toBe(400);
    const fromStringStyle = (await call(sim, 'POST', AUTH, { body: { limit: 5 } })).json.next_cursor;
    expect((await call(arrays, 'POST', AUTH, { body: { limit: 5, cursor: fromStringStyle } })).status).toBe(400);
    // And the string style refuses an array.
    expect((await call(sim, 'POST', AUTH, { body: { limit: 5, cursor } })).status).toBe(400);
    expect((await call(arrays, 'POST', AUTH, { body: { limit: 5, cursor: { not: 'an array' } } })).status).toBe(400);
  });
});
