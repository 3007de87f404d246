import knexFactory from 'knex';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { table } from '../../src/schema/schema.js';
import { PostgresDriver } from '../../src/store/drivers/postgres/postgres-driver.js';
import {
  LOOKUP_COLUMNS,
  STATISTICS_TARGET,
  TableStatistics,
} from '../../src/store/drivers/postgres/table-statistics.js';
import { openSink } from '../../src/store/open-sink.js';
import { parseTarget } from '../../src/store/target/parse-target.js';
import { announcePostgres, POSTGRES_URL, postgresUp } from '../helpers/postgres.js';
import { freshTarget, type FreshTarget } from '../targets/each-target.js';

/*
 * A target's tables are analyzed as a backfill fills them, whether or not
 * the server's autovacuum runs: without statistics PostgreSQL reads a child
 * table whole to find the rows of a commit's sessions.
 */
announcePostgres('statistics tests');

const TEXT_FIELDS = table('session_text_fields');
const AUTHENTICATIONS = table('authentications');

describe.skipIf(!postgresUp)("the planner's statistics", () => {
  let target: FreshTarget;
  let schema: string;
  let client: pg.Client;

  beforeEach(async () => {
    target = await freshTarget('postgres');
    await (await openSink(target.url)).close();
    const parsed = parseTarget(target.url);
    if (parsed.kind !== 'postgres') throw new Error('not a postgres target');
    schema = parsed.schema;
    client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    // As on a server without autovacuum, or before it comes round: only the driver analyzes.
    for (const name of ['session_text_fields', 'authentications'])
      await client.query(`ALTER TABLE "${schema}".${name} SET (autovacuum_enabled = false)`);
  });

  afterEach(async () => {
    await client.end();
    await target.dispose();
  });

  /** The target's driver, looking at its tables' statistics every `lookEveryRows` rows written. */
  const openDriver = (lookEveryRows: number): PostgresDriver => {
    const parsed = parseTarget(target.url);
    if (parsed.kind !== 'postgres') throw new Error('not a postgres target');
    return PostgresDriver.open({ connectionString: parsed.connectionString, schema, statistics: { lookEveryRows } });
  };

  // The planner's estimate of the rows a commit's look-up of 100 sessions finds
  // (none are there). Without statistics it guesses half the table and reads
  // it whole at any size; with them, a few rows per id, and its index once the
  // table is large (at this test's size either plan may be the cheaper one).
  const probeEstimate = async () => {
    const ids = Array.from({ length: 100 }, (_, i) => `absent-${i}`);
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT service_id FROM "${schema}".session_text_fields WHERE service_id = ANY($1::text[])`,
      [ids],
    );
    const estimate = /rows=(\d+)/.exec(rows[0]!['QUERY PLAN']);
    if (!estimate) throw new Error(`no estimate in ${rows[0]!['QUERY PLAN']}`);
    return Number(estimate[1]);
  };

  it('are gathered once a table has grown, and its lookups are then estimated at a few rows an id', async () => {
    const driver = openDriver(10_000);
    try {
      for (let batch = 0; batch < 6; batch++) {
        const rows = Array.from({ length: 5_000 }, (_, i) => ({
          service_id: `s-${batch}-${Math.floor(i / 5)}`,
          key: `k${i % 5}`,
          value: 'v',
        }));
        await driver.transaction((tx) => tx.write(TEXT_FIELDS, rows, 'fail'));
      }
    } finally {
      // Waits for a look under way.
      await driver.close();
    }
    const { rows } = await client.query<{ reltuples: number }>(
      'SELECT reltuples::float8 AS reltuples FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace ' +
        "WHERE n.nspname = $1 AND c.relname = 'session_text_fields'",
      [schema],
    );
    // Analyzed at 10,000 rows at the least (never analyzed: -1).
    expect(rows[0]!.reltuples).toBeGreaterThanOrEqual(10_000);
    // 30,000 rows of 6,000 sessions: 5 an id, 500 for the 100; without statistics over 5,000.
    expect(await probeEstimate()).toBeLessThan(2_000);
  });

  it("cover a session table's look-up columns only, and leave autovacuum's count of changes", async () => {
    const driver = openDriver(5_000);
    const at = '2026-01-01T00:00:00.000Z';
    try {
      for (let batch = 0; batch < 3; batch++) {
        const rows = Array.from({ length: 5_000 }, (_, i) => ({
          service_id: `a-${batch}-${i}`,
          account: 'default',
          api_version: '1.4',
          brand_display: `brand ${i % 97}`,
          created_epoch: batch * 5_000 + i,
          first_seen_at: at,
          last_synced_at: at,
          source: 'search',
          raw: { service_id: `a-${batch}-${i}` },
        }));
        await driver.transaction((tx) => tx.write(AUTHENTICATIONS, rows, 'fail'));
      }
    } finally {
      await driver.close();
    }
    const { rows: stats } = await client.query<{ attname: string; buckets: number | null }>(
      'SELECT attname, array_length(histogram_bounds::text::text[], 1) AS buckets FROM pg_stats ' +
        "WHERE schemaname = $1 AND tablename = 'authentications' ORDER BY attname",
      [schema],
    );
    const analyzed = stats.map((s) => s.attname);
    expect(analyzed).toEqual([...LOOKUP_COLUMNS.get('authentications')!].sort());
    expect(analyzed).toEqual(expect.arrayContaining(['service_id', 'account', 'created_epoch', 'missing_since']));
    // At the driver's small target: 15,000 distinct epochs in STATISTICS_TARGET buckets, one bound more (at 100: 101).
    const epochs = stats.find((s) => s.attname === 'created_epoch');
    expect(epochs?.buckets).toBe(STATISTICS_TARGET + 1);
    // The server's count of rows changed since the table was analyzed whole: the driver's ANALYZE left it, so
    // autovacuum, where it runs, still analyzes every column. Counts reach the statistics views when a session
    // reports them (at the latest as it ends), so this waits for the count of the inserts.
    let changed = 0;
    const until = performance.now() + 10_000;
    while (changed < 15_000 && performance.now() < until) {
      await client.query('SELECT pg_stat_clear_snapshot()');
      const { rows } = await client.query<{ changed: string }>(
        'SELECT n_mod_since_analyze AS changed FROM pg_stat_user_tables ' +
          "WHERE schemaname = $1 AND relname = 'authentications'",
        [schema],
      );
      changed = Number(rows[0]!.changed);
    }
    expect(changed).toBe(15_000);
  });

  it('come with a VACUUM of a table a backfill grew, which sets its visibility map for index-only reads', async () => {
    const driver = openDriver(5_000);
    const at = '2026-01-01T00:00:00.000Z';
    try {
      // One commit, so one look follows it: 15,000 sessions, none final, as a backfill writes them.
      const rows = Array.from({ length: 15_000 }, (_, i) => ({
        service_id: `n-${i}`,
        account: 'default',
        api_version: '1.4',
        result_final: false,
        created_epoch: i,
        first_seen_at: at,
        last_synced_at: at,
        source: 'search',
        raw: { service_id: `n-${i}` },
      }));
      await driver.transaction((tx) => tx.write(AUTHENTICATIONS, rows, 'fail'));
    } finally {
      // Waits for the look under way, its VACUUM with it.
      await driver.close();
    }
    // Vacuumed by the driver: autovacuum is off for the table, and VACUUM by hand is all `last_vacuum` records.
    // VACUUM marks the table's pages all-visible, so that an index-only scan (the sync's count of an account's
    // non-final sessions, from their partial index) reads none of them; it can mark them only once no transaction
    // older than the rows runs on the server, and other tests' may, so the map itself is not asserted here.
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ vacuumed: Date | null }>(
      'SELECT last_vacuum AS vacuumed FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = $2',
      [schema, 'authentications'],
    );
    expect(rows[0]!.vacuumed).not.toBeNull();
  });

  it('vacuum a grown table without parallel workers, which cost most of its time', async () => {
    await client.query(
      `INSERT INTO "${schema}".authentications (service_id, account, api_version, created_epoch, first_seen_at,
         last_synced_at, source, raw)
       SELECT 'v-' || g, 'default', '1.4', g, now(), now(), 'search', '{}' FROM generate_series(1, 5000) g`,
    );
    const knex = knexFactory({ client: 'pg', connection: POSTGRES_URL ?? '', searchPath: [schema] });
    const sent: string[] = [];
    knex.on('query', (query: { sql: string }) => sent.push(query.sql));
    try {
      const statistics = new TableStatistics(knex, schema, { lookEveryRows: 1 });
      statistics.committed(new Map([['authentications', 5_000]]));
      await statistics.settled();
    } finally {
      await knex.destroy();
    }
    const vacuums = sent.filter((sql) => sql.startsWith('VACUUM'));
    expect(vacuums.length).toBeGreaterThan(0);
    for (const sql of vacuums) expect(sql).toMatch(/\(SKIP_LOCKED, TRUNCATE false, PARALLEL 0\)/);
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ vacuumed: Date | null }>(
      'SELECT last_vacuum AS vacuumed FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = $2',
      [schema, 'authentications'],
    );
    expect(rows[0]!.vacuumed).not.toBeNull();
  });
});
