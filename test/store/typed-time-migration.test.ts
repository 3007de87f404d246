import { expect, it } from 'vitest';
import { MIGRATIONS } from '../../migrations/index.js';
import { CATALOG_TYPES, catalogTypes, columnsOf } from './catalog-types.js';
import { auth, authWindow, batch } from './fixtures.js';
import { forEachTarget } from './for-each-target.js';
import { createTargetBeforeTypedTimes } from './legacy-target.js';

const CREATED = '2025-06-01T23:59:59.999999Z';
const CREATED_EPOCH = Date.UTC(2025, 5, 1, 23, 59, 59) / 1000 + 0.999999;
const FIRST_SEEN = '2025-06-02T00:00:00.000001Z';
const LAST_SYNCED = '2025-06-02T00:00:10.654321Z';
const RAW = '{"service_id":"old","zeta":1,  "alpha":2}';

/** A session row as the release before typed times wrote it. */
const stored = auth('old', {
  customer_item_id: 'C-1',
  created_at: CREATED,
  created_epoch: CREATED_EPOCH,
  first_seen_at: FIRST_SEEN,
  last_synced_at: LAST_SYNCED,
  raw: RAW,
}).row;

const rowsThen = {
  authentications: [stored],
  session_warnings: [{ service_id: 'old', code: 'w', message: 'm', seen_at: '2025-06-02T00:00:10.000002Z' }],
  sync_windows: [
    {
      account: 'default',
      resource: 'authentications',
      api_version: '1.4',
      window_start: 0,
      window_end: 2_000_000_000,
      status: 'done',
      cursor: null,
      pages: 1,
      items: 1,
      attempts: 1,
      error: null,
      updated_at: '2025-06-02T00:00:11.000003Z',
      pass_from: 0,
      pass_to: 2_000_000_000,
      pass_started_at: '2025-06-02T00:00:09.000004Z',
      synced_to: 2_000_000_000,
    },
  ],
  sync_runs: [
    {
      id: 'run-then',
      command: 'sync',
      started_at: '2025-06-02T00:00:09.000005Z',
      finished_at: '2025-06-02T00:00:12.000006Z',
      status: 'succeeded',
      requests: 1,
      items_written: 1,
      error: null,
      account: 'default',
    },
  ],
  sync_leases: [
    {
      name: 'account:default',
      holder: 'gone:1:run-then',
      acquired_at: '2025-06-02T00:00:09.000007Z',
      heartbeat_at: '2025-06-02T00:00:12.000008Z',
    },
  ],
  webhook_deliveries: [
    {
      id: 'd-then',
      webhook_uuid: 'w',
      channel: 'main',
      received_at: '2025-06-02T00:00:13.000009Z',
      signature_ok: true,
      items: 1,
      applied: 1,
      body: '{"items":[]}',
    },
  ],
  rejected_items: [
    {
      id: 'r-then',
      resource: 'authentications',
      service_id: null,
      reason: 'bad',
      raw: '{"bad":true}',
      seen_at: '2025-06-02T00:00:14.000010Z',
      account: 'default',
    },
  ],
};

forEachTarget((dialect, ctx) => {
  it(
    'a target created before typed times is converted in place on open: typed columns, every microsecond kept, ' +
      'and it works on',
    async () => {
      await createTargetBeforeTypedTimes(ctx.target(), rowsThen);
      const sink = await ctx.open();
      expect((await sink.query('SELECT name FROM knex_migrations ORDER BY id')).map((r) => r.name)).toEqual(
        MIGRATIONS.map((m) => m.name),
      );
      const types = await catalogTypes(sink, dialect);
      for (const column of columnsOf('timestamp'))
        expect(types.get(column), column).toBe(CATALOG_TYPES.timestamp[dialect]);
      for (const column of columnsOf('json')) expect(types.get(column), column).toBe(CATALOG_TYPES.json[dialect]);

      // Every time reads back as the text that was stored.
      for (const [table, rows] of Object.entries(rowsThen)) {
        const times = Object.keys(rows[0]!).filter((c) => /_at$|^missing_since$/.test(c));
        const expected = rows.map((r) => Object.fromEntries(times.map((c) => [c, (r as Record<string, unknown>)[c]])));
        expect(await sink.query(`SELECT ${times.join(', ')} FROM ${table}`), table).toEqual(expected);
      }
      const [{ raw }] = (await sink.query('SELECT raw FROM authentications')) as [{ raw: string }];
      // jsonb had normalized the text already; SQLite and DuckDB kept it as written.
      if (dialect === 'postgres') expect(JSON.parse(raw)).toEqual(JSON.parse(RAW));
      else expect(raw).toBe(RAW);

      // The merge reads the converted times: an older observation loses, a newer one wins and keeps first_seen_at.
      expect(
        await sink.mergeBatch(
          batch([auth('old', { ...stored, result_id: 'fake', last_synced_at: '2025-06-02T00:00:10.654320Z' })]),
        ),
      ).toMatchObject({ written: 0, stale: 1 });
      expect(
        await sink.mergeBatch(
          batch([
            auth('old', {
              ...stored,
              result_id: 'unidentified',
              raw: '{"service_id":"old","changed":true}',
              first_seen_at: '2026-01-01T00:00:00.000000Z',
              last_synced_at: '2025-06-02T00:00:10.654322Z',
            }),
          ]),
        ),
      ).toMatchObject({ written: 1, stale: 0 });
      expect(await sink.query('SELECT result_id, first_seen_at, last_synced_at FROM authentications')).toEqual([
        { result_id: 'unidentified', first_seen_at: FIRST_SEEN, last_synced_at: '2025-06-02T00:00:10.654322Z' },
      ]);
      // A complete pass that began after the session was last seen marks it missing (last_synced_at < pass start).
      await sink.startPass(authWindow, {
        passFrom: 0,
        passTo: 2_000_000_000,
        startedAt: '2025-06-02T00:00:10.654323Z',
      });
      expect(
        await sink.commitPage({
          key: authWindow,
          batch: batch([]),
          nextCursor: null,
          done: true,
          now: '2025-06-03T00:00:00.000000Z',
        }),
      ).toMatchObject({ missing: 1 });
      // The stale lease of the release before is taken over; the runs and views read the converted columns.
      expect(await sink.acquireLease('account:default', 'me', 60, '2025-06-02T00:01:12.000009Z')).toMatchObject({
        holder: 'me',
        held: true,
      });
      expect((await sink.status()).lastRuns).toMatchObject([
        { id: 'run-then', startedAt: '2025-06-02T00:00:09.000005Z', finishedAt: '2025-06-02T00:00:12.000006Z' },
      ]);
      expect(await sink.query('SELECT day, total FROM v_daily_results')).toEqual([{ day: '2025-06-01', total: 1 }]);
      expect(await sink.query('SELECT last_run_id, last_run_finished_at, lease_holder FROM v_sync_health')).toEqual([
        { last_run_id: 'run-then', last_run_finished_at: '2025-06-02T00:00:12.000006Z', lease_holder: 'me' },
      ]);
    },
  );
});
