import { expect, it } from 'vitest';
import { MIGRATIONS } from '../../migrations/index.js';
import { TABLES } from '../../src/schema/schema.js';
import type { WindowKey } from '../../src/store/sink.js';
import { auth, authWindow, batch, fp, rejected, t } from './fixtures.js';
import { forEachTarget } from './for-each-target.js';

const query = { account: 'default', resource: 'authentications', apiVersion: '1.4' } as const;

forEachTarget((_dialect, ctx) => {
  it('migrating again is a no-op and a reopened target keeps its rows', async () => {
    const sink = await ctx.open();
    await sink.migrate();
    await sink.migrate();
    const migrations = await sink.query('SELECT name FROM knex_migrations ORDER BY id');
    expect(migrations.map((m) => m.name)).toEqual(MIGRATIONS.map((m) => m.name));
    await sink.mergeBatch(batch([auth('kept')]));
    await sink.close();
    const again = await ctx.open();
    expect((await again.status()).tables.authentications).toBe(1);
    expect(Object.keys((await again.status()).tables).sort()).toEqual(TABLES.map((x) => x.name).sort());
  });

  it('commitPage writes the rows and the checkpoint together; the last page completes the pass', async () => {
    const sink = await ctx.open();
    await sink.planWindows([{ ...authWindow, windowEnd: 2_000 }]);
    await sink.planWindows([{ ...authWindow, windowEnd: 9_999 }]); // existing windows are left alone
    await sink.startPass(authWindow, { passFrom: 0, passTo: 1_500, startedAt: t(1) });
    const first = await sink.commitPage({
      key: authWindow,
      batch: batch(
        [
          auth('a', { last_synced_at: t(2) }, { textFields: [{ service_id: 'a', key: 'identifier', value: 'I-1' }] }),
          auth('b', { last_synced_at: t(2) }),
        ],
        [rejected('r1', t(2))],
      ),
      nextCursor: 'cur-1',
      done: false,
      now: t(2),
    });
    expect(first).toEqual({ written: 2, unchanged: 0, stale: 0, rejected: 1, missing: 0 });
    let [w] = await sink.listWindows(query);
    expect(w).toMatchObject({
      windowEnd: 2_000,
      status: 'running',
      cursor: 'cur-1',
      pages: 1,
      items: 3,
      attempts: 1,
      passFrom: 0,
      passTo: 1_500,
      passStartedAt: t(1),
      syncedTo: null,
      updatedAt: t(2),
    });
    await sink.commitPage({
      key: authWindow,
      batch: batch([auth('c', { last_synced_at: t(3) })]),
      nextCursor: null,
      done: true,
      now: t(3),
    });
    [w] = await sink.listWindows(query);
    expect(w).toMatchObject({ status: 'done', cursor: null, pages: 2, items: 4, syncedTo: 1_500 });
    expect(await sink.highWaterMark('default', 'authentications', '1.4')).toBe(1_500);
    expect(await sink.highWaterMark('default', 'fingerprints', '1.4')).toBeNull();
    expect((await sink.status()).tables).toMatchObject({
      authentications: 3,
      session_text_fields: 1,
      rejected_items: 1,
    });
  });

  it('a pass over part of a covered window keeps its coverage and marks missing only inside the part', async () => {
    const sink = await ctx.open();
    await sink.mergeBatch(
      batch([
        auth('below', { created_epoch: 200, last_synced_at: t(0) }),
        auth('inside-gone', { created_epoch: 550, last_synced_at: t(0) }),
        auth('inside-seen', { created_epoch: 600, last_synced_at: t(0) }),
        auth('above', { created_epoch: 900, last_synced_at: t(0) }),
      ]),
    );
    await sink.planWindows([{ ...authWindow, windowEnd: 1_000 }]);
    await sink.startPass(authWindow, { passFrom: 0, passTo: 1_000, startedAt: t(1) });
    const all = ['below', 'inside-gone', 'inside-seen', 'above'].map((id, i) =>
      auth(id, { created_epoch: [200, 550, 600, 900][i], last_synced_at: t(1) }),
    );
    await sink.commitPage({ key: authWindow, batch: batch(all), nextCursor: null, done: true, now: t(1) });
    expect((await sink.listWindows(query))[0]?.syncedTo).toBe(1_000);

    // A refresh pages [500, 700) again: the window stays covered to 1,000, and only 'inside-gone' is missing.
    await sink.startPass(authWindow, { passFrom: 500, passTo: 700, startedAt: t(2) });
    await sink.commitPage({
      key: authWindow,
      batch: batch([auth('inside-seen', { created_epoch: 600, last_synced_at: t(3) })]),
      nextCursor: null,
      done: true,
      now: t(3),
    });
    expect((await sink.listWindows(query))[0]).toMatchObject({
      status: 'done',
      syncedTo: 1_000,
      passFrom: 500,
      passTo: 700,
      items: 1,
    });
    const missing = await sink.query(
      'SELECT service_id FROM authentications WHERE missing_since IS NOT NULL ORDER BY service_id',
    );
    expect(missing.map((r) => r.service_id)).toEqual(['inside-gone']);
    // What verify prices a window at: its sessions less the missing ones, none of another account's.
    await sink.mergeBatch(batch([auth('elsewhere', { account: 'other', created_epoch: 300, last_synced_at: t(3) })]));
    await sink.planWindows([{ ...authWindow, windowStart: 1_000, windowEnd: 2_000 }]);
    expect(await sink.storedPerWindow(query)).toEqual(
      new Map([
        [0, 3],
        [1_000, 0],
      ]),
    );
  });

  it('a page that begins its window records the pass and completes it in one commit', async () => {
    const sink = await ctx.open();
    await sink.mergeBatch(batch([auth('gone', { created_epoch: 300, last_synced_at: t(0) })]));
    await sink.planWindows([{ ...authWindow, windowEnd: 1_000 }]);
    // A window paged before: its counts start again with the new pass.
    await sink.startPass(authWindow, { passFrom: 0, passTo: 1_000, startedAt: t(0) });
    await sink.commitPage({ key: authWindow, batch: batch([]), nextCursor: 'old', done: false, now: t(0) });
    const [page] = await sink.commitPages([
      {
        key: authWindow,
        batch: batch([auth('seen', { created_epoch: 400, last_synced_at: t(2) })]),
        nextCursor: null,
        done: true,
        now: t(2),
        begin: { passFrom: 0, passTo: 800, startedAt: t(1), windowEnd: 1_000 },
      },
    ]);
    expect(page).toMatchObject({ written: 1, missing: 1 });
    expect((await sink.listWindows(query))[0]).toMatchObject({
      status: 'done',
      cursor: null,
      pages: 1,
      items: 1,
      attempts: 2,
      passFrom: 0,
      passTo: 800,
      passStartedAt: t(1),
      syncedTo: 800,
    });
    const missing = await sink.query('SELECT service_id FROM authentications WHERE missing_since IS NOT NULL');
    expect(missing.map((r) => r.service_id)).toEqual(['gone']);

    // A page that begins a pass it does not complete, and the next page of the same group that does.
    const next = { passFrom: 100, passTo: 2_000, startedAt: t(4), windowEnd: 1_000 };
    const two = await sink.commitPages([
      { key: authWindow, batch: batch([]), nextCursor: 'c1', done: false, now: t(5), begin: next },
      { key: authWindow, batch: batch([]), nextCursor: null, done: true, now: t(6) },
    ]);
    expect(two.map((r) => r.missing)).toEqual([0, 1]);
    expect((await sink.listWindows(query))[0]).toMatchObject({
      status: 'done',
      pages: 2,
      attempts: 3,
      passFrom: 100,
      passTo: 2_000,
      passStartedAt: t(4),
      syncedTo: 1_000,
      updatedAt: t(6),
    });
    const gone = await sink.query('SELECT service_id FROM authentications WHERE missing_since IS NOT NULL');
    expect(gone.map((r) => r.service_id).sort()).toEqual(['gone', 'seen']);
  });

  it('a group completing passes of several accounts and resources marks each missing in its own range', async () => {
    const sink = await ctx.open();
    const second = { ...authWindow, account: 'second' };
    const later = { ...authWindow, windowStart: 1_000 };
    const prints = { ...authWindow, resource: 'fingerprints' } as const;
    await sink.planWindows([
      { ...authWindow, windowEnd: 1_000 },
      { ...later, windowEnd: 2_000 },
      { ...second, windowEnd: 1_000 },
      { ...prints, windowEnd: 1_000 },
    ]);
    await sink.mergeBatch(
      batch([
        auth('gone-default', { created_epoch: 100, last_synced_at: t(0) }),
        auth('seen-later', { created_epoch: 1_500, last_synced_at: t(5) }),
        auth('gone-second', { account: 'second', created_epoch: 500, last_synced_at: t(0) }),
        fp('gone-print', { created_epoch: 200, last_synced_at: t(0) }),
      ]),
    );
    const page = (key: WindowKey, windowEnd: number) => ({
      key,
      batch: batch([]),
      nextCursor: null,
      done: true,
      now: t(6),
      begin: { passFrom: key.windowStart, passTo: windowEnd, startedAt: t(1), windowEnd },
    });
    const results = await sink.commitPages([
      page(authWindow, 1_000),
      page(later, 2_000),
      page(second, 1_000),
      page(prints, 1_000),
    ]);
    expect(results.map((r) => r.missing)).toEqual([1, 0, 1, 1]);
    const gone = await sink.query(
      'SELECT service_id FROM authentications WHERE missing_since IS NOT NULL UNION ALL ' +
        'SELECT service_id FROM fingerprints WHERE missing_since IS NOT NULL',
    );
    expect(gone.map((r) => r.service_id).sort()).toEqual(['gone-default', 'gone-print', 'gone-second']);
    const windows = [
      ...(await sink.listWindows(query)),
      ...(await sink.listWindows({ ...query, account: 'second' })),
      ...(await sink.listWindows({ ...query, resource: 'fingerprints' })),
    ];
    expect(windows.map((w) => [w.account, w.resource, w.windowStart, w.status, w.syncedTo, w.attempts])).toEqual([
      ['default', 'authentications', 1_000, 'done', 2_000, 1],
      ['default', 'authentications', 0, 'done', 1_000, 1],
      ['second', 'authentications', 0, 'done', 1_000, 1],
      ['default', 'fingerprints', 0, 'done', 1_000, 1],
    ]);
  });

  it("the first pass of a window, from --since inside it, sets its mark at the pass's end", async () => {
    const sink = await ctx.open();
    await sink.planWindows([{ ...authWindow, windowEnd: 1_000 }]);
    await sink.startPass(authWindow, { passFrom: 500, passTo: 700, startedAt: t(1) });
    await sink.commitPage({ key: authWindow, batch: batch([]), nextCursor: null, done: true, now: t(1) });
    expect((await sink.listWindows(query))[0]?.syncedTo).toBe(700);
  });

  it(
    'a complete pass marks the sessions of its range it ' + 'did not see as missing; seeing them again clears it',
    async () => {
      const sink = await ctx.open();
      await sink.mergeBatch(
        batch([
          auth('seen', { created_epoch: 1_100, last_synced_at: t(0) }),
          auth('gone', { created_epoch: 1_200, last_synced_at: t(0) }),
          auth('later', { created_epoch: 2_100, last_synced_at: t(0) }),
          auth('other-account', { created_epoch: 1_300, account: 'second', last_synced_at: t(0) }),
          auth('v2-gone', { created_epoch: 1_400, api_version: '2', last_synced_at: t(0) }),
          fp('fingerprint', { created_epoch: 1_300, last_synced_at: t(0) }),
        ]),
      );
      const key: WindowKey = { ...authWindow, windowStart: 1_000 };
      await sink.planWindows([{ ...key, windowEnd: 2_000 }]);
      await sink.startPass(key, { passFrom: 1_000, passTo: 2_000, startedAt: t(10) });
      const result = await sink.commitPage({
        key,
        batch: batch([auth('seen', { created_epoch: 1_100, last_synced_at: t(11) })]),
        nextCursor: null,
        done: true,
        now: t(12),
      });
      expect(result.missing).toBe(2);
      const rows = await sink.query('SELECT service_id, missing_since FROM authentications ORDER BY service_id');
      expect(rows).toEqual([
        { service_id: 'gone', missing_since: t(12) },
        { service_id: 'later', missing_since: null },
        { service_id: 'other-account', missing_since: null },
        { service_id: 'seen', missing_since: null },
        { service_id: 'v2-gone', missing_since: t(12) },
      ]);
      expect(
        (await sink.query("SELECT missing_since FROM fingerprints WHERE service_id = 'fingerprint'"))[0]?.missing_since,
      ).toBeNull();
      expect((await sink.status()).missing).toEqual({ authentications: 2, fingerprints: 0 });

      await sink.mergeBatch(batch([auth('gone', { created_epoch: 1_200, last_synced_at: t(20) })]));
      expect(
        (await sink.query("SELECT missing_since FROM authentications WHERE service_id = 'gone'"))[0]?.missing_since,
      ).toBeNull();
    },
  );

  it('a pass that requests several windows completes each for its own range only', async () => {
    const sink = await ctx.open();
    await sink.mergeBatch(
      batch([
        auth('below', { created_epoch: 500, last_synced_at: t(0) }),
        auth('inside', { created_epoch: 1_500, last_synced_at: t(0) }),
        auth('above', { created_epoch: 2_500, last_synced_at: t(0) }),
      ]),
    );
    const key: WindowKey = { ...authWindow, windowStart: 1_000 };
    await sink.planWindows([{ ...key, windowEnd: 2_000 }]);
    // One stream pages [0, 3000) and reached this window; its cursor belongs to that range.
    await sink.startPass(key, { passFrom: 0, passTo: 3_000, startedAt: t(10) });
    const result = await sink.commitPages([
      { key, batch: batch([]), nextCursor: 'c', done: false, now: t(11), pages: 1 },
      { key, batch: batch([]), nextCursor: null, done: true, now: t(12), pages: 0 },
    ]);
    expect(result.map((r) => r.missing)).toEqual([0, 1]);
    const rows = await sink.query('SELECT service_id, missing_since FROM authentications ORDER BY service_id');
    expect(rows).toEqual([
      { service_id: 'above', missing_since: null },
      { service_id: 'below', missing_since: null },
      { service_id: 'inside', missing_since: t(12) },
    ]);
    const [w] = await sink.listWindows({ ...query, from: 1_000, to: 2_000 });
    expect(w).toMatchObject({ status: 'done', pages: 1, syncedTo: 2_000, passFrom: 0, passTo: 3_000 });
  });

  it('splitWindow keeps the fetched rest done and plans the parts pending', async () => {
    const sink = await ctx.open();
    await sink.planWindows([{ ...authWindow, windowEnd: 1_000 }]);
    await sink.startPass(authWindow, { passFrom: 0, passTo: 1_000, startedAt: t(1) });
    const parts = [
      { ...authWindow, windowStart: 0, windowEnd: 300 },
      { ...authWindow, windowStart: 300, windowEnd: 600 },
    ];
    await expect(sink.splitWindow(authWindow, 600, [parts[0]!], t(2))).rejects.toThrow(/partition/);
    await sink.splitWindow(authWindow, 600, parts, t(2));
    const windows = await sink.listWindows(query);
    expect(windows.map((w) => [w.windowStart, w.windowEnd, w.status])).toEqual([
      [600, 1_000, 'done'],
      [300, 600, 'pending'],
      [0, 300, 'pending'],
    ]);
    expect(windows[0]?.syncedTo).toBe(1_000);
    expect(
      (await sink.listWindows({ ...query, status: ['pending'], from: 0, to: 300 })).map((w) => w.windowStart),
    ).toEqual([0]);
  });

  it('markWindow, runs and status report what was written', async () => {
    const sink = await ctx.open({ clock: () => new Date(Date.UTC(2026, 0, 1)) });
    await sink.planWindows([
      { ...authWindow, windowEnd: 100 },
      { ...authWindow, windowStart: 100, windowEnd: 200 },
      { ...authWindow, resource: 'fingerprints', windowStart: 0, windowEnd: 100 },
    ]);
    await sink.markWindow({ ...authWindow, windowStart: 100 }, 'failed', 'HTTP 500', t(3));
    const [failed] = await sink.listWindows({ ...query, status: ['failed'] });
    expect(failed).toMatchObject({ status: 'failed', error: 'HTTP 500', updatedAt: t(3) });
    await sink.startPass(authWindow, { passFrom: 0, passTo: 100, startedAt: t(4) });
    await sink.commitPage({
      key: authWindow,
      batch: batch([auth('a', { result_final: false }), auth('b')]),
      nextCursor: null,
      done: true,
      now: t(5),
    });
    await sink.mergeBatch(batch([fp('f', { result_final: false }), fp('g', { result_final: false })]));
    await sink.markMissing('default', 'fingerprints', ['g'], t(6));
    for (let i = 0; i < 12; i += 1)
      await sink.startRun({
        id: `run-${String(i).padStart(2, '0')}`,
        command: 'sync',
        startedAt: t(10 + i),
        account: null,
        holder: 'h:1:x',
      });
    await sink.finishRun('run-11', {
      finishedAt: t(30),
      status: 'failed',
      requests: 4,
      itemsWritten: 2,
      error: 'boom',
    });

    const status = await sink.status();
    expect(status.tables).toMatchObject({ authentications: 2, fingerprints: 2, sync_windows: 3, sync_runs: 12 });
    expect(status.windows).toEqual([
      { account: 'default', resource: 'authentications', apiVersion: '1.4', status: 'done', count: 1, items: 2 },
      { account: 'default', resource: 'authentications', apiVersion: '1.4', status: 'failed', count: 1, items: 0 },
      { account: 'default', resource: 'fingerprints', apiVersion: '1.4', status: 'pending', count: 1, items: 0 },
    ]);
    expect(status.highWaterMarks).toEqual([
      { account: 'default', resource: 'authentications', apiVersion: '1.4', syncedTo: 100 },
      { account: 'default', resource: 'fingerprints', apiVersion: '1.4', syncedTo: null },
    ]);
    expect(status.nonFinal).toEqual({ authentications: 1, fingerprints: 1 });
    expect(status.missing).toEqual({ authentications: 0, fingerprints: 1 });
    expect(status.rejected).toBe(0);
    expect(status.lastRuns).toHaveLength(10);
    expect(status.lastRuns[0]).toEqual({
      id: 'run-11',
      command: 'sync',
      startedAt: t(21),
      finishedAt: t(30),
      status: 'failed',
      requests: 4,
      itemsWritten: 2,
      error: 'boom',
      holder: 'h:1:x',
      refresh: null,
    });
    expect(status.lastRuns[1]).toMatchObject({ id: 'run-10', status: 'running', finishedAt: null });
    expect([...(await sink.nonFinalEpochs('default', 'fingerprints'))]).toEqual([1_000]);
    expect([...(await sink.nonFinalEpochs('default', 'authentications'))]).toEqual([1_000]);
    expect([...(await sink.nonFinalEpochs('second', 'authentications'))]).toEqual([]);
  });

  it('reads the non-final sessions in chunks, each once, whatever their number', async () => {
    const sink = await ctx.open();
    // Several chunks of 2,048, and ids whose order is not their created order.
    const n = 5_003;
    const sessions = Array.from({ length: n }, (_, i) =>
      auth(`s-${String((i * 7919) % n).padStart(5, '0')}`, { result_final: false, created_epoch: 10_000 - i }),
    );
    await sink.mergeBatch(batch([...sessions, auth('final-one'), auth('gone', { result_final: false })]));
    await sink.markMissing('default', 'authentications', ['gone'], t(6));
    const epochs = [...(await sink.nonFinalEpochs('default', 'authentications'))];
    expect(epochs).toHaveLength(n);
    expect(epochs).toEqual(Array.from({ length: n }, (_, i) => 10_000 - n + 1 + i));
    const seen: string[] = [];
    await sink.refreshCandidates('default', 'authentications', (c) => seen.push(c.serviceId));
    expect(new Set(seen).size).toBe(n);
    expect(seen).toHaveLength(n);
    expect(seen).not.toContain('gone');
    // A repaged part reads those created within it again.
    const within: number[] = [];
    await sink.refreshCandidates('default', 'authentications', (c) => within.push(c.createdEpoch!), {
      from: 9_000,
      to: 9_010,
    });
    expect(within.sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => 9_000 + i));
  });

  it('a group of 40 pages commits in one call', async () => {
    const sink = await ctx.open();
    const windows = Array.from({ length: 4 }, (_, i) => ({
      ...authWindow,
      windowStart: i * 1_000,
      windowEnd: (i + 1) * 1_000,
    }));
    await sink.planWindows(windows);
    for (const w of windows) await sink.startPass(w, { passFrom: w.windowStart, passTo: w.windowEnd, startedAt: t(0) });
    const pages = Array.from({ length: 40 }, (_, p) => {
      const w = windows[p % 4]!;
      const sessions = Array.from({ length: 25 }, (_, i) =>
        auth(
          `s-${p}-${i}`,
          { created_epoch: w.windowStart + i, last_synced_at: t(1) },
          { textFields: [{ service_id: `s-${p}-${i}`, key: 'k', value: 'v' }] },
        ),
      );
      return { key: w, batch: batch(sessions), nextCursor: p >= 36 ? null : `c${p}`, done: p >= 36, now: t(1) };
    });
    const results = await sink.commitPages(pages);
    expect(results).toHaveLength(40);
    expect(results.every((r) => r.written === 25 && r.stale === 0 && r.rejected === 0)).toBe(true);
    const all = await sink.listWindows(query);
    expect(all.map((w) => [w.status, w.pages, w.items])).toEqual(Array.from({ length: 4 }, () => ['done', 10, 250]));
    expect((await sink.status()).tables).toMatchObject({ authentications: 1_000, session_text_fields: 1_000 });
  });
});

forEachTarget((dialect, ctx) => {
  it.runIf(dialect === 'duckdb')(
    'a closed DuckDB file opens read-only in a fresh instance, WAL folded in',
    async () => {
      const { DuckDBInstance } = await import('@duckdb/node-api');
      const { existsSync } = await import('node:fs');
      const sink = await ctx.open();
      await sink.mergeBatch(batch([auth('a', { customer_item_id: 'X' })]));
      await sink.close();
      const path = ctx.target().slice('duckdb:'.length);
      expect(existsSync(`${path}.wal`)).toBe(false);
      const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
      try {
        const connection = await instance.connect();
        const reader = await connection.runAndReadAll('SELECT service_id FROM v_latest_authentications');
        expect(reader.getRowObjectsJS()).toEqual([{ service_id: 'a' }]);
        connection.closeSync();
      } finally {
        instance.closeSync();
      }
    },
  );
});

forEachTarget((dialect, ctx) => {
  it.runIf(dialect === 'sqlite')('SQLite runs in WAL mode', async () => {
    const sink = await ctx.open();
    expect(await sink.query('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
  });
});
