import { expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { runIvsync } from '../helpers/run-cli.js';
import { until } from '../helpers/wait.js';

it('simulate --cursor-style array hands out arrays of strings and refuses them sent back as text', async () => {
  const port = await freePort();
  const stop = new AbortController();
  const running = runIvsync(
    ['simulate', '--port', String(port), '--sessions', '60', '--cursor-style', 'array'],
    {},
    stop.signal,
  );
  const search = (body: unknown) =>
    fetch(`http://127.0.0.1:${port}/v1/search/authentications`, {
      method: 'POST',
      headers: { 'Api-Version': '1.4', Authorization: 'Token test-token', 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  try {
    const first = await until(() => search({ limit: 5 }).catch(() => undefined), 15_000, 'the simulator to listen');
    const cursor = ((await first.json()) as { next_cursor: unknown }).next_cursor;
    expect(Array.isArray(cursor) && cursor.every((p) => typeof p === 'string')).toBe(true);
    expect((await search({ limit: 5, cursor })).status).toBe(200);
    expect((await search({ limit: 5, cursor: JSON.stringify(cursor) })).status).toBe(400);
  } finally {
    stop.abort();
  }
  expect((await running).code).toBe(0);
});

it('simulate refuses an unknown cursor style (usage error)', async () => {
  const r = await runIvsync(['simulate', '--port', '0', '--cursor-style', 'object']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/cursor-style/);
});
