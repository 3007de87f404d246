import { afterEach, describe, expect, it } from 'vitest';
import { openSlowClient, SLOW_REQUESTS, statusOf, type SlowClient } from '../helpers/slow-client.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { count, post, row, SECRET, sign, signedDelivery, startHarness, type Harness } from './harness.js';

const tempDir = useTempDir();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function harness(options: Parameters<typeof startHarness>[1]): Promise<Harness> {
  const h = await startHarness(tempDir(), options);
  closers.push(() => h.close());
  return h;
}

/** `n` slow clients, opened one after the other so the server sees them in this order. */
async function openSlow(url: string, n: number): Promise<SlowClient[]> {
  const clients: SlowClient[] = [];
  for (let i = 0; i < n; i++) clients.push(await openSlowClient(url, SLOW_REQUESTS[i % SLOW_REQUESTS.length]!));
  return clients;
}

function refusals(h: Harness, reason: string): number {
  return h.events.filter((e) => e.outcome === 'refused' && e.reason === reason).length;
}

describe('slow clients', () => {
  it(
    'a request not fully arrived within the time-out is ' + 'answered 408 and closed; a signed delivery still lands',
    async () => {
      const timeoutMs = 300;
      const h = await harness({ limits: { requestTimeoutMs: timeoutMs, maxConnections: 1_000 } });
      const slow = await Promise.all(
        Array.from({ length: 200 }, (_, i) => openSlowClient(h.url, SLOW_REQUESTS[i % SLOW_REQUESTS.length]!)),
      );
      const lifetimes = await Promise.all(slow.map((c) => c.closed));

      expect(slow.map((c) => statusOf(c.answer()))).toEqual(slow.map(() => 408));
      // The server closed every one; how late is a hang guard against Node's 300 s default, not a timing measurement.
      expect(Math.max(...lifetimes)).toBeLessThan(timeoutMs + 5_000);
      expect(refusals(h, 'request-timeout')).toBe(200);
      expect(h.events).toHaveLength(200);

      const { body, headers } = signedDelivery('slow-after-timeouts');
      const answer = await post(h.url, body, headers);
      expect(answer.status).toBe(200);
      expect(count(h.db, 'webhook_deliveries')).toBe(1);
      expect(row(h.db, 'authentications', 'slow-after-timeouts')).toMatchObject({ source: 'webhook' });
    },
  );

  it('at the connection cap, a new connection closes the oldest slow one: signed deliveries get through', async () => {
    const cap = 40;
    const opened = 200;
    // A time-out far beyond the test: only the cap (and the stop at the end) closes connections here.
    const h = await harness({ limits: { requestTimeoutMs: 120_000, maxConnections: cap, stopGraceMs: 100 } });
    const slow = await openSlow(h.url, opened);
    await Promise.all(slow.slice(0, opened - cap).map((c) => c.closed));
    expect(slow.slice(0, opened - cap).map((c) => statusOf(c.answer()))).toEqual(
      slow.slice(0, opened - cap).map(() => 503),
    );

    for (let i = 0; i < 3; i++) {
      const { body, headers } = signedDelivery(`slow-at-cap-${i}`);
      const answer = await post(h.url, body, headers);
      expect(answer.status).toBe(200);
      expect(row(h.db, 'authentications', `slow-at-cap-${i}`)).toMatchObject({ source: 'webhook' });
    }
    expect(count(h.db, 'webhook_deliveries')).toBe(3);
    // One more slow client made room; the later deliveries reuse the first one's keep-alive connection or replace it.
    await slow[opened - cap]!.closed;
    expect(slow.slice(opened - cap + 1).filter((c) => c.isClosed())).toEqual([]);
    expect(refusals(h, 'connection-limit')).toBe(opened - cap + 1);
    expect(h.events.filter((e) => e.outcome === 'accepted')).toHaveLength(3);

    // A stop gives requests under way a short grace, not the slow clients' time-out: nothing of theirs arrived to be
    // stored.
    await h.server.close();
    await Promise.all(slow.map((c) => c.closed));
  });

  it('refuses nothing it did before: 413, 401 and a replay are answered as always under the limits', async () => {
    const h = await harness({ maxBodyBytes: 4_096, limits: { requestTimeoutMs: 5_000, maxConnections: 4 } });
    const { body, headers } = signedDelivery('plain');
    expect((await post(h.url, body, headers)).status).toBe(200);
    expect(await (await post(h.url, body, headers)).json()).toMatchObject({ duplicate: true });
    expect((await post(h.url, body, { 'Service-Signature': sign(SECRET, `${body} `) })).status).toBe(401);
    expect((await post(h.url, 'x'.repeat(8_000), headers)).status).toBe(413);
    expect(count(h.db, 'webhook_deliveries')).toBe(1);
  });
});
