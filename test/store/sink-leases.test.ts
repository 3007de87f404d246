import { expect, it } from 'vitest';
import { batch, rejected, t } from './fixtures.js';
import { forEachTarget } from './for-each-target.js';

const webhookRow = (uuid: string, account: string) => ({
  webhook_uuid: uuid,
  account,
  channel: 'main',
  endpoint_url: 'https://hooks.example.com/x',
  filters: [{ key: 'result', value: 'authentic' }],
  created_at: t(0),
  created_epoch: 1_767_225_600,
  organization_name: 'org',
  username: 'user',
  active: true,
  last_synced_at: t(1),
  raw: '{"webhook_uuid":"x"}',
});

forEachTarget((dialect, ctx) => {
  it('a lease is held by one holder until its heartbeat is older than the ttl', async () => {
    const sink = await ctx.open();
    expect(await sink.acquireLease('account:default', 'A', 60, t(0))).toMatchObject({
      holder: 'A',
      held: true,
      acquiredAt: t(0),
    });
    expect(await sink.acquireLease('account:default', 'B', 60, t(30))).toMatchObject({ holder: 'A', held: false });
    // Renewing keeps acquired_at and moves the heartbeat.
    expect(await sink.acquireLease('account:default', 'A', 60, t(50))).toEqual({
      name: 'account:default',
      holder: 'A',
      acquiredAt: t(0),
      heartbeatAt: t(50),
      held: true,
    });
    expect(await sink.acquireLease('account:default', 'B', 60, t(109))).toMatchObject({ holder: 'A', held: false });
    expect(await sink.acquireLease('account:default', 'B', 60, t(111))).toMatchObject({
      holder: 'B',
      held: true,
      acquiredAt: t(111),
    });
    expect(await sink.acquireLease('account:default', 'A', 60, t(112))).toMatchObject({ holder: 'B', held: false });
    await sink.releaseLease('account:default', 'A'); // not the holder: no effect
    expect((await sink.leases()).map((l) => l.holder)).toEqual(['B']);
    await sink.releaseLease('account:default', 'B');
    expect(await sink.leases()).toEqual([]);
    expect(await sink.acquireLease('account:default', 'A', 60, t(113))).toMatchObject({ holder: 'A', held: true });
  });

  it('holders racing for a free lease: exactly one gets it', async () => {
    const sink = await ctx.open();
    const results = await Promise.all(['A', 'B', 'C', 'D'].map((h) => sink.acquireLease('race', h, 60, t(0))));
    expect(results.filter((r) => r.held)).toHaveLength(1);
    expect(new Set(results.map((r) => r.holder)).size).toBe(1);
  });

  // A DuckDB file has one writing process; two sinks on it in one process are not supported.
  it.skipIf(dialect === 'duckdb')('two connections racing for a free lease: exactly one gets it', async () => {
    const one = await ctx.open();
    const two = await ctx.open();
    const results = await Promise.all([
      ...['A', 'B'].map((h) => one.acquireLease('race', h, 60, t(0))),
      ...['C', 'D'].map((h) => two.acquireLease('race', h, 60, t(0))),
    ]);
    expect(results.filter((r) => r.held)).toHaveLength(1);
    expect(new Set(results.map((r) => r.holder)).size).toBe(1);
  });

  it('rejected items are kept once per id, with the latest seen_at', async () => {
    const sink = await ctx.open();
    expect(await sink.mergeBatch(batch([], [rejected('r1', t(1)), rejected('r2', t(1))]))).toEqual({
      written: 0,
      unchanged: 0,
      stale: 0,
      rejected: 2,
      missing: 0,
    });
    await sink.mergeBatch(batch([], [rejected('r1', t(5))]));
    expect(await sink.query('SELECT id, seen_at, reason FROM rejected_items ORDER BY id')).toEqual([
      { id: 'r1', seen_at: t(5), reason: 'status.result: expected an object' },
      { id: 'r2', seen_at: t(1), reason: 'status.result: expected an object' },
    ]);
    expect((await sink.status()).rejected).toBe(2);
  });

  it("replaceMirror replaces one account's rows and leaves the others", async () => {
    const sink = await ctx.open();
    await sink.replaceMirror('webhooks', 'default', [webhookRow('w1', 'default'), webhookRow('w2', 'default')]);
    await sink.replaceMirror('webhooks', 'second', [webhookRow('w9', 'second')]);
    await sink.replaceMirror('webhooks', 'default', [webhookRow('w3', 'default')]);
    const rows = await sink.query('SELECT webhook_uuid, account, active FROM webhooks ORDER BY webhook_uuid');
    expect(rows.map((r) => [r.webhook_uuid, r.account, Boolean(r.active)])).toEqual([
      ['w3', 'default', true],
      ['w9', 'second', true],
    ]);
    await expect(
      sink.replaceMirror('webhooks', 'default', [{ webhook_uuid: 'x', account: 'default' }]),
    ).rejects.toThrow(/lacks/);
    await expect(sink.replaceMirror('authentications' as never, 'default', [])).rejects.toThrow(/not a mirror/);
  });
});
