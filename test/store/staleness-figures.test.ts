import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { toIsoMicros } from '../../src/normalize/time.js';
import { parseTarget } from '../../src/store/target/parse-target.js';
import type { QueryableSink } from '../../src/store/sql-sink.js';
import { execute } from '../helpers/sqlite-target.js';
import { auth, authWindow, batch, t } from './fixtures.js';
import { forEachTarget } from './for-each-target.js';

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** Runs DDL on a SQLite file or a PostgreSQL schema, outside ivsync (as an older release left it). */
async function rawExec(target: string, statements: readonly string[]): Promise<void> {
  const parsed = parseTarget(target);
  if (parsed.kind === 'sqlite') {
    for (const sql of statements) execute(parsed.path, sql);
    return;
  }
  const url = new URL(target);
  const schema = url.searchParams.get('schema')!;
  url.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(`SET search_path TO "${schema}"`);
    for (const sql of statements) await client.query(sql);
  } finally {
    await client.end();
  }
}

async function checkAt(sink: QueryableSink, id: string, tier: 'hot' | 'backoff', at: string): Promise<void> {
  await sink.recordRefreshChecks('default', 'authentications', [{ serviceId: id, tier, intervalSeconds: 300 }], at);
}

forEachTarget((dialect, ctx) => {
  it('v_sync_health gives per tier the count and the p50, p95 and oldest age of the last checks', async () => {
    const sink = await ctx.open();
    const now = Date.now() / 1000;
    const ago = (seconds: number) => toIsoMicros(Math.floor(now) - seconds);
    await sink.planWindows([{ ...authWindow, windowEnd: 100 }]);
    const nonFinal = (id: string, seenAgo: number) =>
      auth(id, { result_final: false, first_seen_at: ago(seenAgo), last_synced_at: ago(seenAgo) });
    await sink.mergeBatch(
      batch([
        ...['b1', 'b2', 'b3', 'b4', 'h1'].map((id) => nonFinal(id, 90_000)),
        nonFinal('u1', 50_000),
        nonFinal('u2', 60_000),
        // Neither counts: a final session needs no check, a missing one cannot have one.
        auth('final', { result_final: true, last_synced_at: ago(99_000) }),
        nonFinal('gone', 99_000),
      ]),
    );
    await sink.markMissing('default', 'authentications', ['gone'], ago(10));
    for (const [i, id] of ['b1', 'b2', 'b3', 'b4'].entries()) await checkAt(sink, id, 'backoff', ago(1000 * (i + 1)));
    await checkAt(sink, 'h1', 'hot', ago(100));

    const [row] = await sink.query("SELECT * FROM v_sync_health WHERE resource = 'authentications'");
    expect(row).toBeDefined();
    const figures = (tier: string) => ({
      sessions: num(row![`${tier}_sessions`]),
      p50: num(row![`${tier}_check_age_p50_seconds`]),
      p95: num(row![`${tier}_check_age_p95_seconds`]),
      max: num(row![`${tier}_check_age_max_seconds`]),
    });
    // Ages by the database's clock, a moment after `now`: ranks 2 and 4 of 4, 1 of 1, 1 and 2 of 2.
    // Within 50 s: the test may run slowly, and the ranks it tells apart are 100 s or more apart.
    const close = (value: number) => expect.closeTo(value, -2);
    expect(figures('backoff')).toEqual({ sessions: 4, p50: close(2000), p95: close(4000), max: close(4000) });
    expect(figures('hot')).toEqual({ sessions: 1, p50: close(100), p95: close(100), max: close(100) });
    expect(figures('unchecked')).toEqual({ sessions: 2, p50: close(50_000), p95: close(60_000), max: close(60_000) });
    const [fingerprints] = await sink.query("SELECT * FROM v_sync_health WHERE resource = 'fingerprints'");
    expect(fingerprints).toBeUndefined();

    // status reads the same figures as times, for its own clock.
    const status = await sink.status();
    const backoff = status.refresh.find((r) => r.tier === 'backoff');
    expect(backoff).toEqual(
      expect.objectContaining({ sessions: 4, p50CheckAt: ago(2000), p95CheckAt: ago(4000), oldestCheckAt: ago(4000) }),
    );
  });

  it('a check keeps refresh state only for the sessions it found neither final nor gone', async () => {
    const sink = await ctx.open();
    await sink.mergeBatch(
      batch([
        auth('open', { result_final: false }),
        auth('done', { result_final: true }),
        auth('gone', { result_final: false, missing_since: t(1) }),
        auth('unknown', { result_final: null }),
      ]),
    );
    const checks = ['open', 'done', 'gone', 'unknown', 'never-stored'].map((serviceId) => ({
      serviceId,
      tier: 'hot' as const,
      intervalSeconds: 300,
    }));
    await sink.recordRefreshChecks('default', 'authentications', checks, t(2));
    const rows = await sink.query('SELECT service_id FROM session_refresh ORDER BY service_id');
    expect(rows.map((r) => String(r.service_id))).toEqual(['never-stored', 'open', 'unknown']);
  });

  it("keeps each dated change once with its observed lag: v2 last_updated_at, else a delivery's arrival", async () => {
    const sink = await ctx.open();
    await sink.planWindows([{ ...authWindow, windowEnd: 100 }]);
    const v2 = (row: Parameters<typeof auth>[1]) => auth('s', { api_version: '2', result_final: false, ...row });
    // New to the target: no change to the copy.
    await sink.mergeBatch(batch([v2({ last_updated_at: t(10), update_counter: 1, last_synced_at: t(20) })]));
    // Changed at the service at t(100), stored by a GET at t(160).
    const flagged = { flag: 'x', last_updated_at: t(100), update_counter: 2 };
    await sink.mergeBatch(batch([v2({ ...flagged, last_synced_at: t(160), source: 'get' })]));
    // The same change again in other words (its text differs): counted once.
    const again = v2({ ...flagged, last_synced_at: t(170), source: 'search' });
    await sink.mergeBatch(batch([{ ...again, row: { ...again.row, raw: '{"service_id":"s","said":"differently"}' } }]));
    // A v1.4 delivery says no time: it arrived when the change was made.
    const delivered = auth('d', { result_final: false, last_synced_at: t(200) });
    await sink.mergeBatch(batch([delivered]));
    const item = auth('d', { result_final: true, update_counter: 5, last_synced_at: t(500), source: 'webhook' });
    const delivery = { id: 'delivery-1', webhookUuid: null, channel: null, receivedAt: t(500), items: 1, body: '{}' };
    await sink.applyDelivery(delivery, batch([item]));
    // A v1.4 poll that finds a change cannot date it.
    await sink.mergeBatch(batch([auth('p', { result_final: false })]));
    await sink.mergeBatch(batch([auth('p', { result_final: true, last_synced_at: t(900) })]));

    const rows = await sink.query(
      'SELECT service_id, changed_at, stored_at, lag_seconds, source, account FROM change_lags ORDER BY service_id',
    );
    expect(rows.map((r) => ({ ...r, lag_seconds: Number(r.lag_seconds) }))).toEqual([
      { service_id: 'd', changed_at: t(500), stored_at: t(500), lag_seconds: 0, source: 'webhook', account: 'default' },
      { service_id: 's', changed_at: t(100), stored_at: t(160), lag_seconds: 60, source: 'get', account: 'default' },
    ]);
    const status = await sink.status();
    expect(status.changeLags.map((l) => [l.resource, l.storedAt, l.lagSeconds])).toEqual([
      ['authentications', t(500), 0],
      ['authentications', t(160), 60],
    ]);
  });

  describe.skipIf(dialect === 'duckdb')('a target made before the staleness figures', () => {
    it('gains the run spending columns, change_lags and the new health view when opened', async () => {
      const first = await ctx.open();
      await first.close();
      await rawExec(ctx.target(), [
        'DROP VIEW v_sync_health',
        'DROP TABLE change_lags',
        'ALTER TABLE sync_runs DROP COLUMN refresh_budget',
        'ALTER TABLE sync_runs DROP COLUMN refresh_spent',
        "DELETE FROM knex_migrations WHERE name = '20261126100000_staleness'",
        "CREATE VIEW v_sync_health AS SELECT 'old' AS account",
      ]);
      const sink = await ctx.open();
      await sink.startRun({ id: 'r1', command: 'sync', startedAt: t(0), account: null, holder: 'h:1:r1' });
      const refresh = { budget: 300, spent: 7 };
      const end = { finishedAt: t(5), status: 'succeeded' as const, requests: 7, itemsWritten: 0, error: null };
      await sink.finishRun('r1', { ...end, refresh });
      expect((await sink.status()).lastRuns[0]?.refresh).toEqual({ budget: 300, spent: 7 });
      expect(await sink.query('SELECT COUNT(*) AS n FROM change_lags')).toEqual([{ n: expect.anything() }]);
      const [row] = await sink.query('SELECT * FROM v_sync_health');
      expect(row).toBeUndefined();
      const columns = await sink.query(
        dialect === 'sqlite'
          ? "SELECT name FROM pragma_table_info('v_sync_health')"
          : `SELECT column_name AS name FROM information_schema.columns
             WHERE table_name = 'v_sync_health' AND table_schema = current_schema()`,
      );
      expect(columns.map((c) => c.name)).toContain('backoff_check_age_p95_seconds');
    });
  });
});
