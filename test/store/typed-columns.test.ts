import { expect, it } from 'vitest';
import { openSink } from '../../src/store/open-sink.js';
import { CATALOG_TYPES, catalogTypes, columnsOf } from './catalog-types.js';
import { auth, authWindow, batch, rejected, t } from './fixtures.js';
import { forEachTarget } from './for-each-target.js';

/**
 * A text as the service may send it: keys out of order, a duplicate key, odd whitespace, escapes jsonb would not keep.
 */
const oddRaw = (id: string, note: string): string =>
  `{ "service_id" :"${id}",\n\t"zeta": 1,  "alpha" : [ 1,2 ,3], "zeta":2, "nul": "a\\u0000b", "esc": ` +
  `"\\u00e9\\/", "note": "${note}" }  `;

forEachTarget((dialect, ctx) => {
  it(
    'times are timestamps with time zone in DuckDB and PostgreSQL and ISO text in SQLite, read back as ISO text ' +
      'to the microsecond',
    async () => {
      const sink = await ctx.open();
      const types = await catalogTypes(sink, dialect);
      // Every time column: the `*_at` ones, missing_since, and session_versions's valid_from and valid_to.
      const times = [...types.keys()]
        .filter((c) => /_at$|\.missing_since$|^session_versions\.valid_(from|to)$/.test(c))
        .sort();
      expect(times.length).toBeGreaterThan(15);
      expect(columnsOf('timestamp').sort()).toEqual(times);
      for (const column of columnsOf('timestamp'))
        expect(types.get(column), column).toBe(CATALOG_TYPES.timestamp[dialect]);
      for (const column of columnsOf('json')) expect(types.get(column), column).toBe(CATALOG_TYPES.json[dialect]);

      const values = {
        created_at: '2026-03-04T05:06:07.000001Z',
        last_updated_at: '2026-03-04T05:06:08.999999Z',
        first_seen_at: '2026-03-05T00:00:00.123456Z',
        last_synced_at: '2026-03-05T00:00:00.123456Z',
      };
      await sink.planWindows([{ ...authWindow, windowEnd: 2_000 }]);
      await sink.startPass(authWindow, { passFrom: 0, passTo: 2_000, startedAt: '2026-03-05T00:00:00.000007Z' });
      await sink.commitPages([
        {
          key: authWindow,
          batch: batch([auth('a', values)]),
          nextCursor: 'c1',
          done: false,
          now: '2026-03-05T00:00:00.123457Z',
        },
      ]);
      await sink.startRun({
        id: 'run-1',
        command: 'sync',
        startedAt: '1999-12-31T23:59:59.999999Z',
        account: null,
        holder: 'h:1:x',
      });
      await sink.finishRun('run-1', {
        finishedAt: '2000-01-01T00:00:00.000001Z',
        status: 'succeeded',
        requests: 1,
        itemsWritten: 1,
        error: null,
      });

      const [row] = await sink.query(
        'SELECT created_at, last_updated_at, first_seen_at, last_synced_at, missing_since FROM authentications',
      );
      expect(row).toEqual({ ...values, missing_since: null });
      const [window] = await sink.listWindows({ account: 'default', resource: 'authentications', apiVersion: '1.4' });
      expect(window).toMatchObject({
        updatedAt: '2026-03-05T00:00:00.123457Z',
        passStartedAt: '2026-03-05T00:00:00.000007Z',
      });
      expect((await sink.status()).lastRuns).toMatchObject([
        { id: 'run-1', startedAt: '1999-12-31T23:59:59.999999Z', finishedAt: '2000-01-01T00:00:00.000001Z' },
      ]);
      // A text parameter compares with a stored time to the microsecond.
      const between = 'SELECT count(*) AS n FROM authentications WHERE created_at > ? AND created_at < ?';
      expect(await sink.query(between, ['2026-03-04T05:06:07.000000Z', '2026-03-04T05:06:07.000002Z'])).toEqual([
        { n: 1 },
      ]);
      expect(await sink.query(between, ['2026-03-04T05:06:07.000001Z', '2026-03-04T05:06:07.000002Z'])).toEqual([
        { n: 0 },
      ]);
    },
  );

  it('a lease is stale one microsecond after its ttl, not at it', async () => {
    const sink = await ctx.open();
    await sink.acquireLease('account:default', 'A', 60, '2026-01-01T00:00:00.000001Z');
    expect(await sink.acquireLease('account:default', 'B', 60, '2026-01-01T00:01:00.000001Z')).toMatchObject({
      holder: 'A',
      held: false,
    });
    expect(await sink.acquireLease('account:default', 'B', 60, '2026-01-01T00:01:00.000002Z')).toEqual({
      name: 'account:default',
      holder: 'B',
      acquiredAt: '2026-01-01T00:01:00.000002Z',
      heartbeatAt: '2026-01-01T00:01:00.000002Z',
      held: true,
      tookOverFrom: 'A',
    });
  });

  it('raw, a delivery body and a rejected item keep the text exactly as received', async () => {
    const sink = await ctx.open();
    await sink.planWindows([{ ...authWindow, windowEnd: 2_000 }]);
    await sink.startPass(authWindow, { passFrom: 0, passTo: 2_000, startedAt: t(0) });
    const first = oddRaw('odd', 'first');
    await sink.commitPages([
      {
        key: authWindow,
        batch: batch([auth('odd', { raw: first, last_synced_at: t(1) })]),
        nextCursor: 'c1',
        done: false,
        now: t(1),
      },
    ]);
    expect(await sink.query("SELECT raw FROM authentications WHERE service_id = 'odd'")).toEqual([{ raw: first }]);
    // A later observation replaces the row (the upsert path rather than the insert of a new row).
    const second = oddRaw('odd', 'second');
    const badRaw = ` {"b": 1, "a": "\\u0000", "b": 2}`;
    const result = await sink.commitPages([
      {
        key: authWindow,
        batch: batch([auth('odd', { raw: second, last_synced_at: t(2) })], [{ ...rejected('bad', t(2)), raw: badRaw }]),
        nextCursor: null,
        done: true,
        now: t(2),
      },
    ]);
    expect(result).toMatchObject([{ written: 1, rejected: 1 }]);
    expect(await sink.query("SELECT raw FROM authentications WHERE service_id = 'odd'")).toEqual([{ raw: second }]);
    expect(await sink.query("SELECT raw FROM rejected_items WHERE id = 'bad'")).toEqual([{ raw: badRaw }]);

    const body = `{"items": [${oddRaw('hook', 'delivered')}],  "webhook_uuid":"w-1"}`;
    await sink.applyDelivery(
      { id: 'd-1', webhookUuid: 'w-1', channel: 'main', receivedAt: t(3), items: 0, body },
      batch([]),
    );
    expect(await sink.query("SELECT body, received_at FROM webhook_deliveries WHERE id = 'd-1'")).toEqual([
      { body, received_at: t(3) },
    ]);
  });

  it.runIf(dialect === 'duckdb')(
    'a DuckDB target stores the instant given whatever its session time zone',
    async () => {
      const sink = await ctx.open();
      await sink.query("SET TimeZone = 'Asia/Tokyo'");
      await sink.mergeBatch(batch([auth('tz', { created_at: '2026-03-01T23:30:00.000001Z' })]));
      expect(
        await sink.query("SELECT created_at, epoch_us(created_at) AS us FROM authentications WHERE service_id = 'tz'"),
      ).toEqual([{ created_at: '2026-03-01T23:30:00.000001Z', us: Date.UTC(2026, 2, 1, 23, 30) * 1000 + 1 }]);
      // The UTC day, though it is already 2 March in Tokyo.
      expect(await sink.query('SELECT day FROM v_daily_results')).toEqual([{ day: '2026-03-01' }]);
    },
  );

  it.runIf(dialect === 'postgres')(
    'a PostgreSQL target works in UTC whatever time zone the connection asks for',
    async () => {
      const url = new URL(ctx.target());
      url.searchParams.set('options', '-c TimeZone=Asia/Tokyo');
      const sink = await openSink(url.toString());
      try {
        expect(await sink.query("SELECT current_setting('TimeZone') AS tz")).toEqual([{ tz: 'UTC' }]);
        await sink.mergeBatch(
          batch([
            auth('tz', {
              created_at: '2026-03-01T23:30:00.000001Z',
              created_epoch: Date.UTC(2026, 2, 1, 23, 30) / 1000,
            }),
          ]),
        );
        expect(
          await sink.query(
            "SELECT created_at, CAST(created_at AS DATE) AS day FROM authentications WHERE service_id = 'tz'",
          ),
        ).toEqual([{ created_at: '2026-03-01T23:30:00.000001Z', day: '2026-03-01' }]);
        expect(await sink.query('SELECT day FROM v_daily_results')).toEqual([{ day: '2026-03-01' }]);
      } finally {
        await sink.close();
      }
    },
  );
});
