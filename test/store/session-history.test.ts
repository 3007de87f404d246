import { expect, it } from 'vitest';
import type { QueryableSink } from '../../src/store/sql-sink.js';
import { readRow } from '../../src/store/row-reader.js';
import { table } from '../../src/schema/schema.js';
import { executeOn } from '../helpers/execute-on.js';
import { auth, authWindow, batch, fp, t } from './fixtures.js';
import { forEachTarget } from './for-each-target.js';

// The view has the columns of the table that stores it.
const HISTORY = table('session_versions');
const MIGRATION = '20261126200000_session_history';
const WITHOUT_ROWID = '20261126400000_history_without_rowid';
const IMPLICIT_FIRST = '20261126500000_history_implicit_first';

async function versions(sink: QueryableSink, serviceId: string): Promise<Record<string, unknown>[]> {
  const rows = await sink.query('SELECT * FROM session_history WHERE service_id = ? ORDER BY valid_from', [serviceId]);
  return rows.map((r) => readRow(HISTORY, r));
}

const count = async (sink: QueryableSink): Promise<number> =>
  Number((await sink.query('SELECT COUNT(*) AS n FROM session_history'))[0]!.n);

forEachTarget((_dialect, ctx) => {
  it('a version per change of result, flag, counter or missing_since; an unchanged re-check writes none', async () => {
    const sink = await ctx.open();
    const created = auth('s', {
      result_id: 'pending',
      result_final: false,
      last_synced_at: t(10),
      first_seen_at: t(10),
    });
    await sink.mergeBatch(batch([created]));
    await sink.mergeBatch(batch([{ ...created, row: { ...created.row, last_synced_at: t(20) } }]));
    await sink.mergeBatch(
      batch([auth('s', { result_id: 'pending', result_final: false, flag: 'hold', last_synced_at: t(30) })]),
    );
    await sink.markMissing('default', 'authentications', ['s'], t(40));
    await sink.markMissing('default', 'authentications', ['s'], t(41));
    await sink.mergeBatch(
      batch([auth('s', { result_id: 'pending', result_final: false, flag: 'hold', last_synced_at: t(50) })]),
    );
    const final = auth('s', {
      result_id: 'authentic',
      result_final: true,
      flag: 'hold',
      update_counter: 4,
      source: 'webhook',
      last_synced_at: t(60),
    });
    await sink.applyDelivery(
      { id: 'd1', webhookUuid: 'w', channel: 'default', receivedAt: t(60), items: 1, body: '{}' },
      batch([final]),
    );
    // The same item polled later (no counter): the row is rewritten, the tracked values are the same.
    await sink.mergeBatch(
      batch([auth('s', { result_id: 'authentic', result_final: true, flag: 'hold', last_synced_at: t(70) })]),
    );

    const rows = await versions(sink, 's');
    expect(
      rows.map((r) => [
        r.valid_from,
        r.valid_to,
        r.result_id,
        r.result_final,
        r.flag,
        r.missing_since,
        r.update_counter,
        r.source,
      ]),
    ).toEqual([
      [created.row.created_at, t(30), 'pending', false, null, null, null, 'search'],
      [t(30), t(40), 'pending', false, 'hold', null, null, 'search'],
      [t(40), t(50), 'pending', false, 'hold', t(40), null, 'get'],
      [t(50), t(60), 'pending', false, 'hold', null, null, 'search'],
      [t(60), null, 'authentic', true, 'hold', null, 4, 'webhook'],
    ]);
    expect(
      rows.every((r) => r.account === 'default' && r.resource === 'authentications' && r.api_version === '1.4'),
    ).toBe(true);
  });

  it('a v2 change is dated by the service (last_updated_at); fingerprints are versioned apart', async () => {
    const sink = await ctx.open();
    await sink.mergeBatch(
      batch([
        fp('f', {
          api_version: '2',
          result_final: false,
          result_id: 'pending',
          last_updated_at: t(5),
          last_synced_at: t(10),
        }),
      ]),
    );
    await sink.mergeBatch(
      batch([fp('f', { api_version: '2', result_final: true, last_updated_at: t(15), last_synced_at: t(90) })]),
    );
    const rows = await versions(sink, 'f');
    expect(rows.map((r) => [r.resource, r.valid_from, r.valid_to, r.result_final, r.api_version])).toEqual([
      ['fingerprints', fp('f').row.created_at, t(15), false, '2'],
      ['fingerprints', t(15), null, true, '2'],
    ]);
  });

  it('shuffled deliveries make versions in update_counter order, none the service never had', async () => {
    const sink = await ctx.open();
    // The service's versions: counter n has flag f<n>, final from counter 4 on.
    const states = [1, 2, 3, 4, 5, 6].map((n) => ({ n, flag: `f${n}`, final: n >= 4 }));
    const order = [3, 1, 5, 2, 6, 4];
    let at = 100;
    for (const n of order) {
      const s = states[n - 1]!;
      const item = auth('s', {
        update_counter: n,
        flag: s.flag,
        result_final: s.final,
        source: 'webhook',
        last_synced_at: t(at),
      });
      await sink.applyDelivery(
        { id: `d${n}`, webhookUuid: 'w', channel: 'default', receivedAt: t(at), items: 1, body: '{}' },
        batch([item]),
      );
      at += 1;
    }
    const rows = await versions(sink, 's');
    // Only a delivery newer than all before it is applied: 3, 5, 6.
    expect(rows.map((r) => [r.update_counter, r.flag, r.result_final, r.valid_to === null])).toEqual([
      [3, 'f3', false, false],
      [5, 'f5', true, false],
      [6, 'f6', true, true],
    ]);
    const timeline = await sink.query(
      "SELECT version, update_counter, previous_flag FROM v_session_timeline WHERE service_id = 's'",
    );
    expect(timeline.map((r) => [Number(r.version), Number(r.update_counter), r.previous_flag])).toEqual([
      [1, 3, null],
      [2, 5, 'f3'],
      [3, 6, 'f5'],
    ]);
  });

  /** Two complete passes over one window, seeing `first` at t(1), then `second` at t(11): the second's result. */
  async function twoPasses(first: readonly string[], second: readonly string[]) {
    const sink = await ctx.open();
    await sink.planWindows([{ ...authWindow, windowEnd: 2_000 }]);
    const pass = async (ids: readonly string[], at: number) => {
      await sink.startPass(authWindow, { passFrom: 0, passTo: 2_000, startedAt: t(at) });
      return sink.commitPage({
        key: authWindow,
        batch: batch(ids.map((id) => auth(id, { last_synced_at: t(at + 1) }))),
        nextCursor: null,
        done: true,
        now: t(at + 2),
      });
    };
    await pass(first, 0);
    return { sink, missing: (await pass(second, 10)).missing };
  }

  it('a complete pass marks the sessions it no longer returned missing, each with a version', async () => {
    const { sink, missing } = await twoPasses(['kept', 'gone'], ['kept']);
    expect(missing).toBe(1);
    expect((await versions(sink, 'gone')).map((r) => [r.valid_from, r.missing_since, r.source])).toEqual([
      [auth('gone').row.created_at, null, 'search'],
      [t(12), t(12), 'search'],
    ]);
    expect(await versions(sink, 'kept')).toHaveLength(1);
  });

  it('a complete pass that returns none of its range marks every session of it missing', async () => {
    const { sink, missing } = await twoPasses(['one', 'two'], []);
    expect(missing).toBe(2);
    for (const id of ['one', 'two'])
      expect((await versions(sink, id)).map((r) => r.missing_since)).toEqual([null, t(12)]);
  });

  it('v_result_turnaround: created to the first final version, with brand and form factor', async () => {
    const sink = await ctx.open();
    const createdAt = { created_epoch: Date.UTC(2026, 0, 1) / 1000, created_at: t(0) };
    const pending = auth('a', { ...createdAt, result_id: 'pending', result_final: false, last_synced_at: t(1) });
    await sink.mergeBatch(batch([pending, fp('f', { result_final: true, form_factor: 'lightbox' })]));
    const final = { ...createdAt, result_final: true, api_version: '2' as const };
    await sink.mergeBatch(
      batch([auth('a', { ...final, result_id: 'authentic', last_updated_at: t(90.5), last_synced_at: t(100) })]),
    );
    // A later final result does not move the first one.
    await sink.mergeBatch(
      batch([auth('a', { ...final, result_id: 'counterfeit', last_updated_at: t(200), last_synced_at: t(300) })]),
    );
    const rows = await sink.query('SELECT * FROM v_result_turnaround ORDER BY service_id');
    expect(
      rows.map((r) => ({
        service_id: r.service_id,
        resource: r.resource,
        brand_id: r.brand_id,
        form_factor: r.form_factor,
        result_id: r.result_id,
        turnaround_seconds: Number(r.turnaround_seconds),
        seen_non_final: Boolean(r.seen_non_final),
      })),
    ).toEqual([
      {
        service_id: 'a',
        resource: 'authentications',
        brand_id: 'acme',
        form_factor: 'microscopic',
        result_id: 'authentic',
        turnaround_seconds: 90.5,
        seen_non_final: true,
      },
      {
        service_id: 'f',
        resource: 'fingerprints',
        brand_id: null,
        form_factor: 'lightbox',
        result_id: 'registered',
        turnaround_seconds: 0,
        seen_non_final: false,
      },
    ]);
  });

  it('a session whose row was deleted by hand is stored again after its history, never at the same start', async () => {
    const sink = await ctx.open();
    await sink.mergeBatch(batch([auth('s', { result_final: false, result_id: 'pending', last_synced_at: t(1) })]));
    await sink.mergeBatch(
      batch([auth('s', { result_final: false, result_id: 'pending', flag: 'x', last_synced_at: t(2) })]),
    );
    // A session that never changed has its one version in its row alone: deleting the row takes it.
    await sink.mergeBatch(batch([auth('u', { last_synced_at: t(1) })]));
    await sink.close();
    await executeOn(ctx.target(), ["DELETE FROM authentications WHERE service_id IN ('s', 'u')"]);
    const again = await ctx.open();
    expect(await versions(again, 'u')).toEqual([]);
    await again.mergeBatch(batch([auth('s', { last_synced_at: t(9) })]));
    const rows = await versions(again, 's');
    expect(rows.map((r) => [r.result_final, r.flag, r.valid_to === null])).toEqual([
      [false, null, false],
      [false, 'x', false],
      [true, null, true],
    ]);
    expect(rows[2]!.valid_from).toBe(rows[1]!.valid_to);
    expect(String(rows[2]!.valid_from) > String(rows[1]!.valid_from)).toBe(true);
  });

  it('the migration gives a target without the table one version per stored session, from first_seen_at', async () => {
    const sink = await ctx.open();
    await sink.mergeBatch(
      batch([
        auth('a', { result_final: false, result_id: 'pending', first_seen_at: t(3), last_synced_at: t(3) }),
        auth('b', { flag: 'x', update_counter: 7, source: 'webhook', first_seen_at: t(4), last_synced_at: t(4) }),
        fp('f', { first_seen_at: t(5), last_synced_at: t(5) }),
      ]),
    );
    await sink.markMissing('default', 'authentications', ['b'], t(6));
    await sink.close();
    // The target as the release before history mode left it.
    await executeOn(ctx.target(), [
      'DROP VIEW v_result_turnaround',
      'DROP VIEW v_session_timeline',
      'DROP VIEW session_history',
      'DROP TABLE session_versions',
      `DELETE FROM knex_migrations WHERE name IN ('${MIGRATION}', '${WITHOUT_ROWID}', '${IMPLICIT_FIRST}')`,
    ]);

    const again = await ctx.open();
    expect((await again.query('SELECT name FROM knex_migrations WHERE name = ?', [MIGRATION])).length).toBe(1);
    const rows = (await again.query('SELECT * FROM session_history ORDER BY service_id')).map((r) =>
      readRow(HISTORY, r),
    );
    expect(
      rows.map((r) => [
        r.service_id,
        r.resource,
        r.valid_from,
        r.valid_to,
        r.result_final,
        r.flag,
        r.missing_since,
        r.update_counter,
        r.source,
      ]),
    ).toEqual([
      ['a', 'authentications', t(3), null, false, null, null, null, 'search'],
      ['b', 'authentications', t(4), null, true, 'x', t(6), 7, 'webhook'],
      ['f', 'fingerprints', t(5), null, true, null, null, null, 'search'],
    ]);
    // The views are back, and history goes on from the migrated version.
    await again.mergeBatch(batch([auth('a', { result_final: true, result_id: 'authentic', last_synced_at: t(20) })]));
    const timeline = await again.query(
      "SELECT version, valid_from, result_final FROM v_session_timeline WHERE service_id = 'a'",
    );
    expect(timeline.map((r) => [Number(r.version), readRow(HISTORY, r).valid_from, Boolean(r.result_final)])).toEqual([
      [1, t(3), false],
      [2, t(20), true],
    ]);
    expect(await count(again)).toBe(4);
  });
});
