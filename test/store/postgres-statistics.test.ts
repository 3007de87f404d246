import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { table } from '../../src/schema/schema.js';
import { PostgresDriver } from '../../src/store/drivers/postgres/postgres-driver.js';
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
    await client.query(`ALTER TABLE "${schema}".session_text_fields SET (autovacuum_enabled = false)`);
  });

  afterEach(async () => {
    await client.end();
    await target.dispose();
  });

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
    const parsed = parseTarget(target.url);
    if (parsed.kind !== 'postgres') throw new Error('not a postgres target');
    const driver = PostgresDriver.open({
      connectionString: parsed.connectionString,
      schema,
      statistics: { lookEveryRows: 10_000 },
    });
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
});
