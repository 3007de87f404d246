import { expect, it } from 'vitest';
import { auth, authWindow, batch, fp, rejected, t } from './fixtures.js';
import { forEachTarget } from './for-each-target.js';

const bool = (v: unknown): boolean | null => (v === null || v === undefined ? null : Boolean(v));

forEachTarget((_dialect, ctx) => {
  it(
    'v_latest_authentications follows the lookup rule: ' + 'first final, else latest non-final; missing left out',
    async () => {
      const sink = await ctx.open();
      await sink.mergeBatch(
        batch([
          auth('x-final-old', { customer_item_id: 'X', result_final: true, created_epoch: 100 }),
          auth('x-final-new', { customer_item_id: 'X', result_final: true, created_epoch: 200 }),
          auth('x-pending', { customer_item_id: 'X', result_final: false, created_epoch: 300 }),
          auth('y-old', { customer_item_id: 'Y', result_final: false, created_epoch: 100 }),
          auth('y-new', { customer_item_id: 'Y', result_final: false, created_epoch: 200 }),
          auth('z-gone', { customer_item_id: 'Z', result_final: true, created_epoch: 100 }),
          auth('no-id', { customer_item_id: null }),
        ]),
      );
      await sink.markMissing('default', 'authentications', ['z-gone'], t(1));
      const rows = await sink.query(
        'SELECT customer_item_id, service_id FROM v_latest_authentications ORDER BY customer_item_id',
      );
      expect(rows).toEqual([
        { customer_item_id: 'X', service_id: 'x-final-old' },
        { customer_item_id: 'Y', service_id: 'y-new' },
      ]);
      const [full] = await sink.query("SELECT * FROM v_latest_authentications WHERE customer_item_id = 'X'");
      expect(Object.keys(full ?? {})).toContain('raw');
      expect(Object.keys(full ?? {})).not.toContain('lookup_rank');
    },
  );

  it('v_fingerprint_pairs joins each compare session to its registration', async () => {
    const sink = await ctx.open();
    await sink.mergeBatch(
      batch([
        fp('reg', { mode: 'register', customer_item_id: 'R', result_id: 'registered' }),
        fp('cmp', {
          mode: 'compare',
          customer_item_id: 'C',
          result_id: 'match',
          parent_service_id: 'reg',
          parent_accessible: true,
        }),
        fp('orphan', { mode: 'compare', result_id: 'match', parent_accessible: false }),
      ]),
    );
    const rows = await sink.query(
      'SELECT compare_service_id, compare_result_id, parent_service_id, parent_accessible, ' +
        'registration_service_id, registration_customer_item_id FROM v_fingerprint_pairs ORDER BY ' +
        'compare_service_id',
    );
    expect(rows.map((r) => ({ ...r, parent_accessible: bool(r.parent_accessible) }))).toEqual([
      {
        compare_service_id: 'cmp',
        compare_result_id: 'match',
        parent_service_id: 'reg',
        parent_accessible: true,
        registration_service_id: 'reg',
        registration_customer_item_id: 'R',
      },
      {
        compare_service_id: 'orphan',
        compare_result_id: 'match',
        parent_service_id: null,
        parent_accessible: false,
        registration_service_id: null,
        registration_customer_item_id: null,
      },
    ]);
  });

  it('v_daily_results counts per day, result and brand', async () => {
    const sink = await ctx.open();
    const day1 = Date.UTC(2026, 2, 1) / 1000;
    const day2 = Date.UTC(2026, 2, 2) / 1000;
    const at = (epoch: number) => ({
      created_epoch: epoch,
      created_at: new Date(epoch * 1000).toISOString().replace('Z', '000Z'),
    });
    await sink.mergeBatch(
      batch([
        auth('a', { ...at(day1 + 10), result_id: 'authentic', brand_id: 'acme', result_final: true }),
        auth('b', { ...at(day1 + 20), result_id: 'authentic', brand_id: 'acme', result_final: false }),
        auth('c', { ...at(day1 + 30), result_id: 'unidentified', brand_id: 'acme', result_final: true }),
        auth('d', { ...at(day2 + 10), result_id: 'authentic', brand_id: 'other', result_final: true }),
      ]),
    );
    const rows = await sink.query(
      'SELECT day, result_id, brand_id, total, final FROM v_daily_results ORDER BY day, result_id, brand_id',
    );
    expect(rows.map((r) => ({ ...r, total: Number(r.total), final: Number(r.final) }))).toEqual([
      { day: '2026-03-01', result_id: 'authentic', brand_id: 'acme', total: 2, final: 1 },
      { day: '2026-03-01', result_id: 'unidentified', brand_id: 'acme', total: 1, final: 1 },
      { day: '2026-03-02', result_id: 'authentic', brand_id: 'other', total: 1, final: 1 },
    ]);
  });

  it(
    'v_sync_health reports high-water mark, lag, final ' + 'share, pending windows, last run and rejected items',
    async () => {
      const sink = await ctx.open();
      const hwm = Math.floor(Date.now() / 1000) - 3_600;
      await sink.planWindows([
        { ...authWindow, windowStart: hwm - 100, windowEnd: hwm },
        { ...authWindow, windowStart: hwm, windowEnd: hwm + 100 },
      ]);
      const key = { ...authWindow, windowStart: hwm - 100 };
      await sink.startPass(key, { passFrom: hwm - 100, passTo: hwm, startedAt: t(0) });
      await sink.commitPage({
        key,
        batch: batch(
          [
            auth('a', { result_final: true }),
            auth('b', { result_final: false }),
            auth('c', { result_final: true }),
            auth('d', { result_final: true }),
          ],
          [rejected('r', t(1))],
        ),
        nextCursor: null,
        done: true,
        now: t(1),
      });
      await sink.startRun({ id: 'old', command: 'backfill', startedAt: t(0), account: 'default', holder: 'h:1:old' });
      await sink.startRun({ id: 'new', command: 'sync', startedAt: t(5), account: null, holder: 'h:1:new' });
      await sink.finishRun('new', { finishedAt: t(6), status: 'succeeded', requests: 1, itemsWritten: 4, error: null });
      const [health] = await sink.query('SELECT * FROM v_sync_health');
      expect(health).toMatchObject({
        account: 'default',
        resource: 'authentications',
        api_version: '1.4',
        last_run_id: 'new',
        last_run_status: 'succeeded',
        last_run_finished_at: t(6),
      });
      expect(Number(health?.high_water_mark)).toBe(hwm);
      expect(Number(health?.final_share)).toBeCloseTo(0.75);
      expect(Number(health?.pending_windows)).toBe(1);
      expect(Number(health?.rejected_items)).toBe(1);
      // Lag is "now − high-water mark": about an hour, measured by the database's own clock.
      expect(Number(health?.freshness_lag_seconds)).toBeGreaterThanOrEqual(3_599);
      expect(Number(health?.freshness_lag_seconds)).toBeLessThan(3_600 + 600);
    },
  );
});
