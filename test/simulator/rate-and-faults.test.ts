import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { call } from './http.js';
import { useSimulators } from '../helpers/simulators.js';

let sim: RunningSimulator | undefined;
const simulator = useSimulators({});

describe('rate limit', () => {
  it('answers 429 with Retry-After beyond the burst, per token, and refills with the clock', async () => {
    let now = 1_000_000;
    sim = await simulator({
      sessions: 10,
      rate: 5,
      retryAfterSeconds: 2,
      clock: () => now,
      tokens: { 'test-token': 'alice', other: 'bob' },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await call(sim, 'GET', '/v1/health')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const limited = await call(sim, 'GET', '/v1/health');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    // Another token has its own bucket.
    expect((await call(sim, 'GET', '/v1/health', { token: 'other' })).status).toBe(200);
    expect(sim.stats.count429).toBe(2);
    now += 400; // 2 tokens back at 5 per second
    expect((await call(sim, 'GET', '/v1/health')).status).toBe(200);
    expect((await call(sim, 'GET', '/v1/health')).status).toBe(200);
    expect((await call(sim, 'GET', '/v1/health')).status).toBe(429);
    expect(sim.stats.byRoute['GET /v1/health']).toEqual({ '200': 8, '429': 3 });
    // Per owner only what its bucket let through, with the clock of the first and the last.
    expect(sim.stats.byOwner).toEqual({
      alice: { requests: 7, firstAt: 1_000_000, lastAt: 1_000_400 },
      bob: { requests: 1, firstAt: 1_000_000, lastAt: 1_000_000 },
    });
  });
});

describe('faults', () => {
  const health = (s: RunningSimulator): Promise<Response> =>
    fetch(`${s.url}/v1/search/authentications`, {
      method: 'POST',
      headers: { 'Api-Version': '1.4', Authorization: 'Token test-token', 'Content-Type': 'application/json' },
      body: '{}',
    });

  it('500', async () => {
    sim = await simulator({ sessions: 10, rate: 1000, faults: '500=1' });
    expect((await health(sim)).status).toBe(500);
    expect(sim.stats.faultsInjected['500']).toBe(1);
  });

  it('reset', async () => {
    sim = await simulator({ sessions: 10, rate: 1000, faults: 'reset=1' });
    await expect(health(sim)).rejects.toThrow();
    expect(sim.stats.faultsInjected.reset).toBe(1);
  });

  it('truncate: a 200 whose JSON is cut', async () => {
    sim = await simulator({ sessions: 10, rate: 1000, faults: { truncate: 1 } });
    const res = await health(sim);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.length).toBeGreaterThan(0);
    expect(() => JSON.parse(text)).toThrow();
  });

  it('spurious 429 with Retry-After', async () => {
    sim = await simulator({ sessions: 10, rate: 1000, faults: '429=1' });
    const res = await health(sim);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(sim.stats.count429).toBe(0);
    expect(sim.stats.faultsInjected['429']).toBe(1);
  });

  it('slow answers normally, and setFaults changes faults live', async () => {
    sim = await simulator({ sessions: 10, rate: 1000, faults: 'slow=1:20' });
    expect((await health(sim)).status).toBe(200);
    expect(sim.stats.faultsInjected.slow).toBe(1);
    sim.setFaults('500=1');
    expect((await health(sim)).status).toBe(500);
    sim.setFaults({});
    expect((await health(sim)).status).toBe(200);
    expect(() => sim?.setFaults('boom=1')).toThrow(/unknown kind/);
  });

  it('latency applies to errors too (the answer still comes)', async () => {
    sim = await simulator({ sessions: 10, rate: 1000, latencyMs: [1, 5] });
    expect((await call(sim, 'GET', '/v1/health', { token: null })).status).toBe(401);
    sim.setLatency(0);
    expect((await call(sim, 'GET', '/v1/health')).status).toBe(200);
  });

  it('the same seed gives the same faults', async () => {
    const run = async (): Promise<string[]> => {
      const s = await simulator({ sessions: 10, rate: 1000, seed: 3, faults: '500=0.3,429=0.3' });
      const out: string[] = [];
      for (let i = 0; i < 20; i++) out.push(String((await health(s)).status));
      await s.close();
      return out;
    };
    const a = await run();
    expect(await run()).toEqual(a);
    expect(new Set(a).size).toBeGreaterThan(1);
  });
});
