import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { errorMessage, runIvsync } from '../helpers/run-cli.js';
import { call, crawl } from './http.js';
import { useSimulators } from '../helpers/simulators.js';

let sim: RunningSimulator | undefined;
const simulator = useSimulators({});

type Item = Record<string, Record<string, unknown>>;

describe('poison strings', () => {
  it(
    'a share of the world is sent with U+0000 and lone surrogates, as JSON escapes in valid UTF-8; the rest of ' +
      'the world is unchanged',
    async () => {
      const plain = await simulator({ sessions: 300, seed: 3 });
      const truthWithout = plain.world.truth();
      await plain.close();
      sim = await simulator({ sessions: 300, seed: 3, poisonShare: 0.1 });
      const ids = sim.world.serviceIds();
      const poisoned = ids.filter((id) => sim!.world.get(id)!.poison);
      expect(poisoned.length).toBeGreaterThan(5);
      expect(poisoned.length).toBeLessThan(60);
      // Same sessions, same order; only the poisoned ones read differently.
      expect(sim.world.truth().map((i) => i.service_id)).toEqual(truthWithout.map((i) => i.service_id));

      const id = poisoned[0]!;
      const answer = await call(sim, 'GET', `/v1/authentications/${id}`);
      expect(answer.status).toBe(200);
      expect(answer.text).toMatch(/\\u0000/);
      expect(answer.text).toMatch(/\\ud800/);
      expect(answer.text).not.toContain('\u0000');
      const item = answer.json.item as Item;
      expect(item.text_fields!.customer_item_id).toContain('\u0000');
      expect(item.text_fields!.identifier).toContain('\ud800');
      expect(item.properties!.brand).toMatchObject({ display: expect.stringContaining('\udfff') });
      expect(item.text_fields!['note\u0000']).toBe('a\udfffb\u0000');
      expect(item.service_id).toBe(id);

      const v2 = await call(sim, 'GET', `/v2/authentications/${id}`);
      expect((v2.json.item as Item).properties!.customer_item_id).toContain('\u0000');
    },
  );

  it('ivsync simulate --poison takes a share between 0 and 1', async () => {
    const result = await runIvsync(['simulate', '--port', '0', '--poison', '1.5']);
    expect(result.code).toBe(2);
    expect(errorMessage(result.stderr)).toBe('--poison: must be a share between 0 and 1, got 1.5');
  });

  it('a session added with poison: true, in searches and webhook items alike', async () => {
    sim = await simulator({ sessions: 20, seed: 4, recordServedPages: true });
    const added = sim.world.addSession({ poison: true, epoch: 1_789_000_000 });
    expect(
      sim.world.render(sim.world.resolve(added.serviceId)!, { viewer: null, apiVersion: '1.4', webhook: true }).item,
    ).toMatchObject({
      text_fields: { customer_item_id: expect.stringContaining('\u0000') },
    });
    const pages = await crawl(sim, '/v1/search/authentications', {
      range: { start: 1_788_999_999, end: 1_789_000_001 },
    });
    expect(pages).toHaveLength(1);
    expect((pages[0]!.items as Item[])[0]!.text_fields!.customer_item_id).toContain('\u0000');
  });
});

describe('the log of served pages', () => {
  it(
    'records each search page answered 200 in full, with ' + 'its range, cursor and next cursor; not truncated ones',
    async () => {
      sim = await simulator({ sessions: 120, seed: 5, recordServedPages: true });
      const range = { start: 0, end: 2_000_000_000 };
      const pages = await crawl(sim, '/v1/search/authentications', { range });
      expect(sim.servedPages).toHaveLength(pages.length);
      expect(sim.servedPages.map((p) => p.cursor)).toEqual([null, ...pages.slice(0, -1).map((p) => p.next_cursor)]);
      expect(sim.servedPages.map((p) => p.nextCursor)).toEqual(pages.map((p) => p.next_cursor));
      expect(
        sim.servedPages.every(
          (p) => p.route === 'POST /v1/search/authentications' && JSON.stringify(p.range) === JSON.stringify(range),
        ),
      ).toBe(true);
      sim.setFaults('truncate=1');
      await call(sim, 'POST', '/v1/search/authentications', { body: { range } });
      expect(sim.servedPages).toHaveLength(pages.length);
    },
  );

  it('is empty unless asked for', async () => {
    sim = await simulator({ sessions: 10 });
    await crawl(sim, '/v1/search/authentications');
    expect(sim.servedPages).toEqual([]);
  });
});
