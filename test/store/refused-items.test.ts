import { MIGRATIONS } from '../../migrations/index.js';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CommitQueue } from '../../src/crawl/engine/commit-queue.js';
import type { NormalizedSession } from '../../src/normalize/rows.js';
import { findRefused } from '../../src/store/pages/refused-items.js';
import type { PageCommit } from '../../src/store/sink.js';
import { createSqlSink } from '../../src/store/sql-sink.js';
import { SqliteDriver } from '../../src/store/drivers/sqlite/sqlite-driver.js';
import { StoreError } from '../../src/store/drivers/store-error.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { auth, authWindow, batch, rejected, t } from './fixtures.js';
import { forEachTarget } from './for-each-target.js';

describe('findRefused', () => {
  const rowError = (): StoreError =>
    new StoreError('sqlite', 'row', 'SQLITE_CONSTRAINT_NOTNULL', 'NOT NULL constraint failed', null);
  const cases: Array<{ name: string; n: number; bad: number[]; maxProbes: number }> = [
    { name: 'none of a page', n: 25, bad: [], maxProbes: 1 },
    { name: 'one of a page', n: 25, bad: [13], maxProbes: 2 * Math.ceil(Math.log2(25)) + 1 },
    { name: 'the first and the last', n: 25, bad: [0, 24], maxProbes: 4 * Math.ceil(Math.log2(25)) + 1 },
    { name: 'a lone item', n: 1, bad: [0], maxProbes: 1 },
    { name: 'three neighbours', n: 10, bad: [4, 5, 6], maxProbes: 20 },
  ];
  it.each(cases)('finds $name', async ({ n, bad, maxProbes }) => {
    let probes = 0;
    const refused = await findRefused(
      Array.from({ length: n }, (_, i) => i),
      async (part) => {
        probes++;
        if (part.some((i) => bad.includes(i))) throw rowError();
      },
    );
    expect(refused.map((r) => r.entry)).toEqual(bad);
    expect(probes).toBeLessThanOrEqual(maxProbes);
  });

  it('throws when rows are refused together but none alone: no item is to blame', async () => {
    const together = rowError();
    const probe = async (part: readonly number[]): Promise<void> => {
      if (part.includes(2) && part.includes(3)) throw together;
    };
    await expect(findRefused([0, 1, 2, 3], probe)).rejects.toBe(together);
  });

  it('passes on any error that does not blame a row', async () => {
    const down = new StoreError('postgres', 'target', 'ECONNREFUSED', 'connect ECONNREFUSED', null);
    await expect(findRefused([0, 1], () => Promise.reject(down))).rejects.toBe(down);
  });
});

/** A session every target refuses: `source` is NOT NULL. Its text is its own, so it can be found in rejected_items. */
function refusedSession(id: string, syncedAt: string): NormalizedSession {
  return auth(id, {
    source: null as never,
    last_synced_at: syncedAt,
    raw: JSON.stringify({ service_id: id, note: 'refused' }),
  });
}

const pageOf = (
  sessions: NormalizedSession[],
  nextCursor: string | null,
  now: string,
  windowStart = 0,
): PageCommit => ({
  key: { ...authWindow, windowStart },
  batch: batch(sessions, [rejected(`r-${now}`, now)]),
  nextCursor,
  done: nextCursor === null,
  now,
});

/** PostgreSQL hands `json` columns back parsed. */
const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

forEachTarget((dialect, ctx) => {
  it(
    'a page with an item the target refuses commits the ' + 'rest with its checkpoint, and keeps that one aside',
    async () => {
      const sink = await ctx.open();
      await sink.planWindows([{ ...authWindow, windowEnd: 2_000 }]);
      await sink.startPass(authWindow, { passFrom: 0, passTo: 2_000, startedAt: t(1) });
      const result = await sink.commitPage(
        pageOf(
          [auth('a', { last_synced_at: t(2) }), refusedSession('bad', t(2)), auth('b', { last_synced_at: t(2) })],
          'cur-1',
          t(2),
        ),
      );
      expect(result).toEqual({ written: 2, unchanged: 0, stale: 0, rejected: 2, missing: 0 });
      expect(
        (await sink.query('SELECT service_id FROM authentications ORDER BY service_id')).map((r) => r.service_id),
      ).toEqual(['a', 'b']);
      const [w] = await sink.listWindows({ account: 'default', resource: 'authentications', apiVersion: '1.4' });
      expect(w).toMatchObject({ cursor: 'cur-1', pages: 1, items: 4 });
      const kept = await sink.query(
        "SELECT resource, service_id, reason, raw, account FROM rejected_items WHERE service_id = 'bad'",
      );
      expect(kept).toHaveLength(1);
      expect(kept[0]).toMatchObject({ resource: 'authentications', account: 'default' });
      expect(String(kept[0]!.reason)).toMatch(
        new RegExp(`^refused by the target: ${dialect} cannot store a value \\([^)]+\\): .*null`, 'i'),
      );
      expect(String(kept[0]!.reason)).not.toMatch(/\n|insert|select/i);
      expect(String(kept[0]!.reason).length).toBeLessThan(300);
      expect(JSON.parse(text(kept[0]!.raw))).toEqual({ service_id: 'bad', note: 'refused' });

      // The same item on the next pass is the same rejected row.
      await sink.commitPage(pageOf([refusedSession('bad', t(3))], null, t(3)));
      expect(await sink.query("SELECT count(*) AS n FROM rejected_items WHERE service_id = 'bad'")).toEqual([{ n: 1 }]);
    },
  );

  it('a group with such a page commits every page, each with its own checkpoint', async () => {
    const sink = await ctx.open();
    const starts = [0, 2_000, 4_000];
    await sink.planWindows(
      starts.map((windowStart) => ({ ...authWindow, windowStart, windowEnd: windowStart + 2_000 })),
    );
    for (const windowStart of starts)
      await sink.startPass(
        { ...authWindow, windowStart },
        { passFrom: windowStart, passTo: windowStart + 2_000, startedAt: t(1) },
      );
    const queue = new CommitQueue(sink);
    const results = await Promise.all([
      queue.commit(pageOf([auth('p1', { last_synced_at: t(2) })], 'c-1', t(2), 0)),
      queue.commit(pageOf([auth('p2', { last_synced_at: t(2) }), refusedSession('bad2', t(2))], 'c-2', t(2), 2_000)),
      queue.commit(pageOf([auth('p3', { last_synced_at: t(2) })], 'c-3', t(2), 4_000)),
    ]);
    expect(results.map((r) => r.written)).toEqual([1, 1, 1]);
    const windows = await sink.listWindows({ account: 'default', resource: 'authentications', apiVersion: '1.4' });
    expect(windows.map((w) => w.cursor).sort()).toEqual(['c-1', 'c-2', 'c-3']);
    expect(
      (await sink.query('SELECT service_id FROM rejected_items WHERE service_id IS NOT NULL')).map((r) => r.service_id),
    ).toEqual(['bad2']);
  });

  it('a delivery with such an item is applied and recorded: its good items stored, that one kept aside', async () => {
    const sink = await ctx.open();
    const body = JSON.stringify({ channel: 'c', webhook_uuid: 'w', items: [] });
    const delivery = { id: 'd1', webhookUuid: 'w', channel: 'c', receivedAt: t(5), items: 3, body };
    const result = await sink.applyDelivery(
      delivery,
      batch([auth('g1', { last_synced_at: t(5) }), refusedSession('bad3', t(5)), auth('g2', { last_synced_at: t(5) })]),
    );
    expect(result).toMatchObject({ written: 2, rejected: 1, duplicate: false });
    expect(
      (await sink.query('SELECT service_id FROM authentications ORDER BY service_id')).map((r) => r.service_id),
    ).toEqual(['g1', 'g2']);
    expect(await sink.query('SELECT id, items FROM webhook_deliveries')).toEqual([{ id: 'd1', items: 3 }]);
    expect((await sink.query('SELECT service_id FROM rejected_items')).map((r) => r.service_id)).toEqual(['bad3']);
    // Delivered again, it is a replay: nothing more.
    expect(await sink.applyDelivery(delivery, batch([refusedSession('bad3', t(6))]))).toMatchObject({
      duplicate: true,
    });
  });

  it(
    'a page whose every item (four or more) is refused ' + 'fails whole: the statement, not the items, is at fault',
    async () => {
      const sink = await ctx.open();
      await sink.planWindows([{ ...authWindow, windowEnd: 2_000 }]);
      await sink.startPass(authWindow, { passFrom: 0, passTo: 2_000, startedAt: t(1) });
      const all = ['x1', 'x2', 'x3', 'x4'].map((id) => refusedSession(id, t(2)));
      const error = await sink
        .commitPage({ ...pageOf(all, 'cur-1', t(2)), batch: batch(all) })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ failure: 'row' });
      expect(await sink.query('SELECT count(*) AS n FROM rejected_items')).toEqual([{ n: 0 }]);
      const [w] = await sink.listWindows({ account: 'default', resource: 'authentications', apiVersion: '1.4' });
      expect(w).toMatchObject({ cursor: null, pages: 0 });
    },
  );

  it('a refresh batch (GETs) keeps the refused item aside too', async () => {
    const sink = await ctx.open();
    expect(await sink.mergeBatch(batch([refusedSession('bad4', t(7)), auth('ok4', { last_synced_at: t(7) })]))).toEqual(
      { written: 1, unchanged: 0, stale: 0, rejected: 1, missing: 0 },
    );
  });

  it(
    'a 300,000-character id and a 100,000-deep raw that ' + 'reached the store cost no neighbour and no checkpoint',
    async () => {
      // The normalizer keeps both aside (stored-bounds.ts); past it, PostgreSQL refuses them with 54000 and 54001.
      const sink = await ctx.open();
      await sink.planWindows([{ ...authWindow, windowEnd: 2_000 }]);
      await sink.startPass(authWindow, { passFrom: 0, passTo: 2_000, startedAt: t(1) });
      const hugeId = 'h'.repeat(300_000);
      const deepRaw = `{"service_id":"deep","nested":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
      const page = [
        auth('a', { last_synced_at: t(2) }),
        auth(hugeId, { last_synced_at: t(2) }),
        auth('deep', { last_synced_at: t(2), raw: deepRaw }),
        auth('b', { last_synced_at: t(2) }),
      ];
      await sink.commitPage({ ...pageOf(page, 'cur-1', t(2)), batch: batch(page) });
      const stored = (await sink.query('SELECT service_id FROM authentications')).map((r) => String(r.service_id));
      expect(stored).toEqual(expect.arrayContaining(['a', 'b']));
      const [w] = await sink.listWindows({ account: 'default', resource: 'authentications', apiVersion: '1.4' });
      expect(w).toMatchObject({ cursor: 'cur-1', pages: 1 });
      const kept = await sink.query('SELECT service_id, reason, raw FROM rejected_items');
      // Each one is stored or kept aside, never both, never neither.
      expect(stored.includes(hugeId) ? 0 : 1).toBe(kept.filter((r) => String(r.reason).includes('index')).length);
      expect(stored.includes('deep') ? 0 : 1).toBe(kept.filter((r) => r.service_id === 'deep').length);
      if (dialect === 'postgres') {
        expect(stored.sort()).toEqual(['a', 'b']);
        const reasons = kept.map((r) => String(r.reason)).sort();
        expect(reasons[0]).toMatch(/^refused by the target: postgres cannot store a value \(54000\): index row size/);
        expect(reasons[1]).toMatch(
          /^refused by the target: postgres cannot store a value \(54001\): stack depth limit exceeded/,
        );
        // The rejected row itself stores: the id too long for its index is left out, the deep item kept as one JSON
        // string.
        const huge = kept.find((r) => String(r.reason).includes('54000'))!;
        expect(huge.service_id).toBeNull();
        expect(JSON.parse(text(huge.raw)).service_id).toBe(hugeId);
        const deep = kept.find((r) => r.service_id === 'deep')!;
        expect(JSON.parse(text(deep.raw))).toBe(deepRaw);
      }
    },
  );

  it('a delivery whose body nests 100,000 deep is applied and recorded, the body kept as one JSON string', async () => {
    const sink = await ctx.open();
    const body = `{"channel":"c","webhook_uuid":"w","items":[{"nested":${'['.repeat(100_000)}${']'.repeat(100_000)}}]}`;
    const delivery = { id: 'deep-1', webhookUuid: 'w', channel: 'c', receivedAt: t(5), items: 2, body };
    expect(await sink.applyDelivery(delivery, batch([auth('g5', { last_synced_at: t(5) })]))).toMatchObject({
      written: 1,
      duplicate: false,
    });
    const [row] = await sink.query("SELECT body FROM webhook_deliveries WHERE id = 'deep-1'");
    expect(JSON.parse(text(row!.body))).toBe(body);
  });

  it('a page holding one session twice stores the newer copy and keeps the other aside as a duplicate', async () => {
    const sink = await ctx.open();
    await sink.planWindows([{ ...authWindow, windowEnd: 2_000 }]);
    await sink.startPass(authWindow, { passFrom: 0, passTo: 2_000, startedAt: t(1) });
    const page = [
      auth('c', { last_synced_at: t(2), update_counter: 5, flag: 'newer' }),
      auth('n', { last_synced_at: t(2), flag: 'earlier' }),
      auth('c', { last_synced_at: t(2), update_counter: 4, flag: 'older' }),
      auth('n', { last_synced_at: t(2), flag: 'later' }),
    ];
    const result = await sink.commitPage({ ...pageOf(page, null, t(2)), batch: batch(page) });
    expect(result).toMatchObject({ written: 2, rejected: 2 });
    expect(await sink.query('SELECT service_id, flag FROM authentications ORDER BY service_id')).toEqual([
      { service_id: 'c', flag: 'newer' },
      { service_id: 'n', flag: 'later' },
    ]);
    const kept = await sink.query('SELECT service_id, reason, raw FROM rejected_items ORDER BY service_id');
    expect(kept.map((r) => [r.service_id, JSON.parse(text(r.raw)).flag])).toEqual([
      ['c', 'older'],
      ['n', 'earlier'],
    ]);
    for (const r of kept) expect(String(r.reason)).toMatch(/^duplicate: /);
  });

  it.runIf(dialect === 'postgres')(
    'PostgreSQL: text with U+0000 that reached the store is kept aside with its one-line reason',
    async () => {
      const sink = await ctx.open();
      // The normalizer never hands such a value over; the store must still not lose the page for it.
      const poisoned = auth('nul', { customer_item_id: 'a\u0000b', last_synced_at: t(8) });
      await sink.mergeBatch(batch([poisoned, auth('fine', { last_synced_at: t(8) })]));
      expect((await sink.query('SELECT service_id FROM authentications')).map((r) => r.service_id)).toEqual(['fine']);
      const [kept] = await sink.query("SELECT reason FROM rejected_items WHERE service_id = 'nul'");
      expect(String(kept!.reason)).toMatch(/^refused by the target: postgres cannot store a value \((22021|22P05)\): /);
    },
  );
});

describe('a target that fails, rather than refusing a row', () => {
  const tempDir = useTempDir();

  it('SQLite locked by another writer: the commit fails, nothing is kept aside, the checkpoint stays', async () => {
    const path = join(tempDir(), 'locked.sqlite');
    const sink = createSqlSink(await SqliteDriver.open(path, { busyTimeoutMs: 100 }), {
      clock: () => new Date(),
      migrations: MIGRATIONS,
    });
    await sink.migrate();
    await sink.planWindows([{ ...authWindow, windowEnd: 2_000 }]);
    await sink.startPass(authWindow, { passFrom: 0, passTo: 2_000, startedAt: t(1) });
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    try {
      const error = await sink
        .commitPage(pageOf([auth('a'), refusedSession('bad', t(2))], 'cur-1', t(2)))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect(error).toMatchObject({ failure: 'target', driverCode: 'SQLITE_BUSY' });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(await sink.query('SELECT count(*) AS n FROM rejected_items')).toEqual([{ n: 0 }]);
    expect(await sink.query('SELECT count(*) AS n FROM authentications')).toEqual([{ n: 0 }]);
    const [w] = await sink.listWindows({ account: 'default', resource: 'authentications', apiVersion: '1.4' });
    expect(w).toMatchObject({ cursor: null, pages: 0 });
    await sink.close();
  });
});
