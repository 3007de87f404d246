import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { call } from './http.js';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ sessions: 50, rate: 1000 });
});
afterAll(() => sim.close());

describe('headers', () => {
  it.each([
    ['missing Api-Version', { version: null }, 400],
    ['v1 route with 1.3', { version: '1.3' }, 400],
    ['v1 route with the v2 value', { version: '2.0.0' }, 400],
    ['missing Authorization', { token: null }, 401],
    ['unknown token', { token: 'nope-token' }, 401],
  ])('%s', async (_name, options, status) => {
    const res = await call(sim, 'GET', '/v1/health', options);
    expect(res.status).toBe(status);
    expect(res.json).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
  });

  it('answers the health check with the right headers', async () => {
    const res = await call(sim, 'GET', '/v1/health');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ok' });
  });

  it('v2 routes need the v2 value', async () => {
    expect((await call(sim, 'GET', '/v2/authentication-config', { version: '1.4' })).status).toBe(400);
    expect((await call(sim, 'GET', '/v2/authentication-config')).status).toBe(200);
  });

  it('never echoes the token in an error', async () => {
    const res = await call(sim, 'GET', '/v1/health', { token: 'secret-token-value-123' });
    expect(res.status).toBe(401);
    expect(res.text).not.toContain('secret-token-value-123');
  });

  it('404 for an unknown route', async () => {
    expect((await call(sim, 'GET', '/v1/nothing')).status).toBe(404);
  });
});
