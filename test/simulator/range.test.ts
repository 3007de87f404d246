import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { call } from './http.js';

const started: RunningSimulator[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.close()));
});

const EDGE = 1_790_000_100; // after every generated session (default `to` is 1_790_000_000)

describe('range semantics on whole-second created times', () => {
  it.each([
    ['inclusive', 'exclusive', ['A']],
    ['inclusive', 'inclusive', ['B', 'A']],
    ['exclusive', 'exclusive', []],
    ['exclusive', 'inclusive', ['B']],
  ] as const)('start %s, end %s', async (start, end, expected) => {
    const sim = await startSimulator({ sessions: 20, rate: 1000, rangeSemantics: { start, end } });
    started.push(sim);
    const a = sim.world.addSession({ epoch: EDGE });
    const b = sim.world.addSession({ epoch: EDGE + 1 });
    sim.world.addSession({ epoch: EDGE + 0.5 - 10 }); // outside the range either way
    const names = new Map([
      [a.serviceId, 'A'],
      [b.serviceId, 'B'],
    ]);
    const res = await call(sim, 'POST', '/v1/search/authentications', {
      body: { range: { start: EDGE, end: EDGE + 1 } },
    });
    expect(res.status).toBe(200);
    const items = res.json.items as { service_id: string; timestamp: { epoch: number } }[];
    expect(items.map((i) => names.get(i.service_id) ?? i.service_id)).toEqual(expected);
    for (const item of items) expect(Number.isInteger(item.timestamp.epoch)).toBe(true);
  });

  it('generates a share of whole-second created times and fractional ones otherwise', async () => {
    const sim = await startSimulator({ sessions: 400, rate: 1000, integerEpochShare: 0.2 });
    started.push(sim);
    const epochs = sim.world.truth().map((i) => (i.timestamp as { epoch: number }).epoch);
    const whole = epochs.filter((e) => Number.isInteger(e)).length;
    expect(whole).toBeGreaterThan(0);
    expect(whole).toBeLessThan(epochs.length);
  });

  it('a range with only a start or only an end', async () => {
    const sim = await startSimulator({ sessions: 200, rate: 1000 });
    started.push(sim);
    const truth = sim.world.truth();
    const pivot = (truth[50]?.timestamp as { epoch: number }).epoch;
    const newer = truth.filter((i) => (i.timestamp as { epoch: number }).epoch >= Math.ceil(pivot)).length;
    const res = await call(sim, 'POST', '/v1/search/authentications', {
      body: { return: 'service_ids', range: { start: Math.ceil(pivot), end: null } },
    });
    expect(res.json.service_id_count).toBe(Math.min(25, newer));
    const older = await call(sim, 'POST', '/v1/search/authentications', {
      body: { limit: 1, range: { start: null, end: Math.floor(pivot) } },
    });
    expect(
      ((older.json.items as { timestamp: { epoch: number } }[])[0]?.timestamp.epoch ?? 0) < Math.floor(pivot),
    ).toBe(true);
  });
});
