import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlDriver, SqlExecutor } from '../../src/store/drivers/sql-driver.js';
import { nonFinal } from '../../src/schema/session-table.js';
import { orphanChildrenQuery } from '../../src/store/pages/orphan-children.js';
import { CHECKED_EPOCH, checkAgeSql } from '../../src/store/runs/check-age-sql.js';
import { unseenRangesQuery } from '../../src/store/windows/checkpoint-advance.js';
import { eachTarget } from '../targets/each-target.js';
import { announcePostgres, POSTGRES_URL, postgresUp } from '../helpers/postgres.js';
import { rawDriver } from './raw-driver.js';
import { useTempDir } from '../helpers/temp-dir.js';

announcePostgres('key lookup plans');

eachTarget((_dialect, target) => {
  it('whereIn and the orphan query find exactly the listed ids that have child rows', async () => {
    const driver = await rawDriver(target().url);
    try {
      await driver.transaction(async (tx) => {
        await tx.run(
          `INSERT INTO session_text_fields (service_id, key, value) VALUES ('a', 'k', 'v'), ('b', 'k', 'v')`,
        );
        await tx.run(
          `INSERT INTO session_warnings (service_id, code, message, seen_at)
           VALUES ('c', 'w', 'm', '2026-01-01T00:00:00Z')`,
        );
      });
      const found = await driver.read(async (tx) => {
        const list = tx.whereIn('service_id', ['a', 'x', "it's"]);
        const direct = await tx.all(`SELECT service_id FROM session_text_fields WHERE ${list.sql}`, list.params);
        const query = orphanChildrenQuery(tx, ['a', 'c', 'y']);
        const orphans = await tx.all(query.sql, query.params);
        return {
          direct: direct.map((r) => String(r.service_id)),
          orphans: orphans.map((r) => String(r.service_id)).sort(),
        };
      });
      expect(found).toEqual({ direct: ['a'], orphans: ['a', 'c'] });
    } finally {
      await driver.close();
    }
  });

  it('whereIn and keyRelation take any text as the value it is', async () => {
    const hostile = ['NULL', '', 'a,b', '{x}', 'say "hi"', 'back\\slash', 'tab\tand space', 'é中😀', "it's"];
    const driver = await rawDriver(target().url);
    try {
      await driver.transaction(async (tx) => {
        for (const [i, id] of [...hostile, 'other'].entries())
          await tx.run('INSERT INTO session_text_fields (service_id, key, value) VALUES (?, ?, ?)', [id, 'k', `${i}`]);
      });
      const found = await driver.read(async (tx) => {
        const list = tx.whereIn('service_id', hostile);
        const listed = await tx.all(`SELECT service_id FROM session_text_fields WHERE ${list.sql}`, list.params);
        const keys = tx.keyRelation(
          [
            { name: 'service_id', type: 'text' },
            { name: 'n', type: 'integer' },
          ],
          hostile.map((id, i) => [id, i]),
        );
        const joined = await tx.all(
          `SELECT f.service_id, k.n FROM session_text_fields f JOIN ${keys.sql} k ON f.service_id = k.service_id`,
          keys.params,
        );
        return {
          listed: listed.map((r) => String(r.service_id)).sort(),
          joined: joined.map((r) => [String(r.service_id), Number(r.n)]).sort((a, b) => Number(a[1]) - Number(b[1])),
        };
      });
      expect(found).toEqual({ listed: [...hostile].sort(), joined: hostile.map((id, i) => [id, i]) });
    } finally {
      await driver.close();
    }
  });

  it('nonFinal selects the sessions whose result is false, not true, not unknown', async () => {
    const driver = await rawDriver(target().url);
    try {
      await driver.transaction((tx) =>
        tx.run(`INSERT INTO authentications (service_id, account, api_version, result_final, created_epoch,
            first_seen_at, last_synced_at, source, raw) VALUES
          ('open', 'a', '1.4', FALSE, 1, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'search', '{}'),
          ('done', 'a', '1.4', TRUE, 2, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'search', '{}'),
          ('unknown', 'a', '1.4', NULL, 3, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'search', '{}')`),
      );
      const found = await driver.read((tx) =>
        tx.all(`SELECT s.service_id FROM authentications s WHERE ${nonFinal('s.result_final')}`),
      );
      expect(found.map((r) => String(r.service_id))).toEqual(['open']);
    } finally {
      await driver.close();
    }
  });

  it('keyRelation joins exactly the listed keys, text and integers as they were', async () => {
    const driver = await rawDriver(target().url);
    try {
      await driver.transaction((tx) =>
        tx.run(`INSERT INTO session_text_fields (service_id, key, value) VALUES ('a', 'k', '1'), ('a', 'k2', '2'),
          ('it''s', 'k', '3'), ('b', 'k', '4')`),
      );
      const columns = [
        { name: 'service_id', type: 'text' },
        { name: 'key', type: 'text' },
        { name: 'n', type: 'integer' },
      ] as const;
      const found = await driver.read(async (tx) => {
        const keys = tx.keyRelation(columns, [
          ['a', 'k', 1_790_000_000_123],
          ["it's", 'k', -7],
          ['b', 'missing', 0],
        ]);
        return tx.all(
          `SELECT f.value, k.n + 1 AS next FROM session_text_fields f JOIN ${keys.sql} k
             ON f.service_id = k.service_id AND f.key = k.key ORDER BY f.value`,
          keys.params,
        );
      });
      expect(found.map((r) => [String(r.value), Number(r.next)])).toEqual([
        ['1', 1_790_000_000_124],
        ['3', -6],
      ]);
    } finally {
      await driver.close();
    }
  });

  it('keyRelation compares a timestamp key with a timestamp column as instants', async () => {
    const driver = await rawDriver(target().url);
    try {
      await driver.transaction((tx) =>
        tx.run(`INSERT INTO session_warnings (service_id, code, message, seen_at) VALUES
          ('a', 'w', 'm', '2026-01-01T00:00:00.000000Z'), ('a', 'w2', 'm', '2026-01-01T00:00:01.500000Z'),
          ('b', 'w', 'm', '2026-01-02T00:00:00.000000Z')`),
      );
      const columns = [
        { name: 'service_id', type: 'text' },
        { name: 'before', type: 'timestamp' },
      ] as const;
      const found = await driver.read(async (tx) => {
        const keys = tx.keyRelation(columns, [
          ['a', '2026-01-01T00:00:01.000000Z'],
          ['b', '2026-01-02T00:00:00.000000Z'],
        ]);
        return tx.all(
          `SELECT w.service_id, w.code FROM session_warnings w JOIN ${keys.sql} k
             ON w.service_id = k.service_id AND w.seen_at < k.before ORDER BY w.service_id, w.code`,
          keys.params,
        );
      });
      expect(found.map((r) => [String(r.service_id), String(r.code)])).toEqual([['a', 'w']]);
    } finally {
      await driver.close();
    }
  });
});

/**
 * On a table of a few hundred thousand rows with real statistics, PostgreSQL
 * must look the ids of a commit up in the primary key. An `IN` over a
 * subquery or a CTE of the same array is planned as a hash join over a scan
 * of the whole table, on every commit.
 */
describe.skipIf(!postgresUp)('postgres key lookups use the index', () => {
  const schema = `ivs_keys_${randomBytes(6).toString('hex')}`;
  let driver: SqlDriver;
  const ids = Array.from({ length: 500 }, (_, i) => `svc-new-${i}`);

  beforeAll(async () => {
    const url = new URL(POSTGRES_URL ?? '');
    url.searchParams.set('schema', schema);
    driver = await rawDriver(url.toString());
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      await client.query(`SET search_path = "${schema}"`);
      // 25,000 sessions of 8 text fields each, ids as distinct as real ones.
      await client.query(
        `INSERT INTO session_text_fields (service_id, key, value)
         SELECT 'svc-' || md5((g / 8)::text), 'k' || (g % 8), repeat('x', 30) FROM generate_series(0, 199999) g`,
      );
      await client.query('ANALYZE session_text_fields');
      // 70,000 authentications of 40 accounts over a year, seen after the passes below began.
      await client.query(
        `INSERT INTO authentications (service_id, account, api_version, created_epoch, first_seen_at, last_synced_at,
           source, raw)
         SELECT 'auth-' || g, 'a' || (g % 40), '1.4', 1790000000 - g * 450, '2026-11-29T01:00:00Z',
           '2026-11-29T01:00:00Z', 'search', '{}' FROM generate_series(0, 69999) g`,
      );
      await client.query('ANALYZE authentications');
    } finally {
      await client.end();
    }
  }, 60_000);

  afterAll(async () => {
    await driver?.close();
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });

  async function plan(build: (tx: SqlExecutor) => { sql: string; params: unknown[] }): Promise<string> {
    return driver.read(async (tx) => {
      const query = build(tx);
      const rows = await tx.all(`EXPLAIN ${query.sql}`, query.params);
      return rows.map((r) => String(r['QUERY PLAN'])).join('\n');
    });
  }

  it('whereIn on session_text_fields', async () => {
    const text = await plan((tx) => {
      const list = tx.whereIn('service_id', ids);
      return { sql: `SELECT service_id FROM session_text_fields WHERE ${list.sql}`, params: list.params };
    });
    expect(text).toMatch(
      /Index (Only )?Scan[^\n]* on session_text_fields_pkey|Index (Only )?Scan using session_text_fields_pkey/,
    );
    expect(text).not.toContain('Seq Scan on session_text_fields');
  });

  it("the unseen-session scan of both resources' passes probes the (account, created_epoch) index", async () => {
    const ranges = Array.from({ length: 26 }, (_, i) => ({
      resource: i % 2 === 0 ? ('authentications' as const) : ('fingerprints' as const),
      account: `a${i}`,
      from: 1_780_000_000,
      to: 1_780_604_800,
      startedAt: '2026-11-29T00:00:00.000000Z',
    }));
    const text = await plan((tx) => unseenRangesQuery(tx, ranges));
    expect(text).toMatch(/Index[^\n]*authentications_account_created_epoch_idx/);
    expect(text).not.toContain('Seq Scan on authentications');
  });

  it('a write transaction starts no parallel workers for a look-up of ids in two tables', async () => {
    const existing = Array.from({ length: 100 }, (_, i) => `auth-${i * 7}`);
    const explain = (tx: SqlExecutor) => {
      const a = tx.whereIn('service_id', [...ids, ...existing]);
      const b = tx.whereIn('service_id', ids);
      return tx.all(
        `EXPLAIN SELECT service_id, account FROM authentications WHERE ${a.sql} ` +
          `UNION ALL SELECT service_id, value FROM session_text_fields WHERE ${b.sql}`,
        [...a.params, ...b.params],
      );
    };
    const text = (await driver.transaction(explain)).map((r) => String(r['QUERY PLAN'])).join('\n');
    expect(text).toContain('Append');
    expect(text).not.toMatch(/Gather|Parallel/);
    // Set on the connection, not by a statement of each commit; a read transaction (status, exports) has the
    // server's own setting back, on the same pooled connections.
    const setting = 'SELECT current_setting($$max_parallel_workers_per_gather$$) AS n';
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    const server = String((await client.query<{ n: string }>(setting)).rows[0]!.n);
    await client.end();
    expect(server).not.toBe('0');
    for (let i = 0; i < 3; i++) {
      expect(await driver.read((tx) => tx.all(setting))).toEqual([{ n: server }]);
      expect(await driver.transaction((tx) => tx.all(setting))).toEqual([{ n: '0' }]);
    }
  });

  it('the orphan-children query of every commit', async () => {
    const text = await plan((tx) => orphanChildrenQuery(tx, ids));
    expect(text).toMatch(/Index[^\n]*session_text_fields_pkey/);
    expect(text).not.toContain('Seq Scan on session_text_fields');
  });
});

/**
 * SQLite looks a boolean up in an index only by equality: with `NOT result_final` an idle sync's reads of the
 * non-final sessions went through every row of the account, the whole history (docs/benchmarks.md). Through the
 * `result_final` index they read a table page per session; the partial index of the non-final sessions holds
 * what they read, and they read it alone.
 */
describe('sqlite non-final look-ups read the index of the non-final sessions alone', () => {
  const tempDir = useTempDir();

  it.each([['authentications'], ['fingerprints']])('%s', async (table) => {
    const driver = await rawDriver(`sqlite:${join(tempDir(), 'plan.sqlite')}`);
    try {
      const plan = await driver.read((tx) =>
        tx.all(
          `EXPLAIN QUERY PLAN SELECT created_epoch FROM ${table}
           WHERE account = ? AND ${nonFinal()} AND missing_since IS NULL`,
          ['a'],
        ),
      );
      expect(plan.map((row) => String(row.detail))).toEqual([
        `SEARCH ${table} USING COVERING INDEX ${table}_non_final_idx (account=?)`,
      ]);
    } finally {
      await driver.close();
    }
  });

  it.each([['authentications'], ['fingerprints']])('%s: the missing sessions status counts', async (table) => {
    const driver = await rawDriver(`sqlite:${join(tempDir(), 'plan.sqlite')}`);
    try {
      const sql = `SELECT COUNT(*) AS n FROM ${table} WHERE missing_since IS NOT NULL`;
      const plan = await driver.read((tx) => tx.all(`EXPLAIN QUERY PLAN ${sql}`));
      expect(plan.map((row) => String(row.detail))).toEqual([
        `SCAN ${table} USING COVERING INDEX ${table}_missing_idx`,
      ]);
    } finally {
      await driver.close();
    }
  });

  it.each([['authentications'], ['fingerprints']])('%s: the stored sessions of a range', async (table) => {
    const driver = await rawDriver(`sqlite:${join(tempDir(), 'plan.sqlite')}`);
    try {
      const plan = async (where: string) =>
        (
          await driver.read((tx) =>
            tx.all(`EXPLAIN QUERY PLAN SELECT created_epoch FROM ${table} WHERE account = ? AND ${where}`, ['a', 1, 2]),
          )
        ).map((row) => String(row.detail));
      const range = 'created_epoch >= ? AND created_epoch < ?';
      expect(await plan(range)).toEqual([
        `SEARCH ${table} USING COVERING INDEX ${table}_account_created_epoch_idx (account=? AND created_epoch>? ` +
          'AND created_epoch<?)',
      ]);
      expect(await plan(`missing_since IS NOT NULL AND ${range}`)).toEqual([
        `SEARCH ${table} USING COVERING INDEX ${table}_missing_idx (account=? AND created_epoch>? AND created_epoch<?)`,
      ]);
    } finally {
      await driver.close();
    }
  });

  it('v_sync_health, as an analyst reads it', async () => {
    const driver = await rawDriver(`sqlite:${join(tempDir(), 'plan.sqlite')}`);
    try {
      const plan = await driver.read((tx) => tx.all('EXPLAIN QUERY PLAN SELECT * FROM v_sync_health'));
      const details = plan.map((row) => String(row.detail));
      for (const table of ['authentications', 'fingerprints']) {
        // Its per-tier counts and its check ages: each reads the index alone, and never the table.
        expect(details.filter((d) => d.includes(`COVERING INDEX ${table}_non_final_idx`))).toHaveLength(2);
        expect(details.filter((d) => new RegExp(`^SCAN s$`).test(d))).toEqual([]);
      }
    } finally {
      await driver.close();
    }
  });

  it.each([['authentications'], ['fingerprints']] as const)('%s: the check ages status reads', async (table) => {
    const driver = await rawDriver(`sqlite:${join(tempDir(), 'plan.sqlite')}`);
    try {
      const sql = checkAgeSql(table, CHECKED_EPOCH.sqlite);
      const plan = await driver.read((tx) => tx.all(`EXPLAIN QUERY PLAN ${sql}`));
      expect(plan.map((row) => String(row.detail))).toContain(`SCAN s USING COVERING INDEX ${table}_non_final_idx`);
    } finally {
      await driver.close();
    }
  });
});
