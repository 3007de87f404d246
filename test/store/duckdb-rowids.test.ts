import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DuckdbDriver } from '../../src/store/drivers/duckdb/duckdb-driver.js';
import { ROW_GROUP_ROWS } from '../../src/store/drivers/duckdb/duckdb-open.js';
import { rowidCondition } from '../../src/store/drivers/duckdb/duckdb-rowid-ranges.js';
import { DuckdbRowids } from '../../src/store/drivers/duckdb/duckdb-rowids.js';
import { selectWhereIn, updateWhereIn, type Row, type SqlExecutor } from '../../src/store/drivers/sql-driver.js';
import { AUTHENTICATIONS, row, stored } from '../helpers/duckdb-rows.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

describe('DuckDB reads and updates stored sessions by id', () => {
  it('reads the rows of the ids asked for that it holds, and no others', async () => {
    const driver = await DuckdbDriver.open(join(tempDir(), 'read.duckdb'), () => new Date('2026-11-27T00:00:00Z'));
    try {
      await stored(driver, 3_000);
      const columns = ['service_id', 'raw', 'update_counter', 'last_synced_at'];
      const expected = (ids: number[]) => ids.map((i) => ({ ...pick(row(i), columns) }));
      await driver.read(async (tx) => {
        const asked = [7, 600, 2_999];
        const read = await selectWhereIn(tx, 'authentications', columns, 'service_id', [
          ...asked.map((i) => `au-${i}`),
          'absent',
        ]);
        expect(sorted(read)).toEqual(sorted(expected(asked)));
        // A value that reaches SQL text only as a bound parameter, never as text of the statement.
        expect(await selectWhereIn(tx, 'authentications', columns, 'service_id', ["au-1' OR '1'='1"])).toEqual([]);
      });
      // Rows deleted and written again in the transaction: their rowids (from 2 ** 55) are read, and they are.
      await driver.transaction(async (tx) => {
        await tx.run("DELETE FROM authentications WHERE service_id = 'au-7'");
        await tx.write(AUTHENTICATIONS, [{ ...row(7), raw: '{"changed":true}' }], 'fail');
        const [read] = await selectWhereIn(tx, 'authentications', ['raw'], 'service_id', ['au-7']);
        expect(read).toEqual({ raw: '{"changed":true}' });
      });
    } finally {
      await driver.close();
    }
  });

  it('updates the rows it read by their rowids, and by key once a write has moved them', async () => {
    const driver = await DuckdbDriver.open(join(tempDir(), 'update.duckdb'), () => new Date('2026-11-27T00:00:00Z'));
    const synced = (ids: readonly string[]) =>
      driver.read(async (tx) => {
        const rows = await selectWhereIn(tx, 'authentications', ['service_id', 'last_synced_at'], 'service_id', ids);
        return Object.fromEntries(rows.map((r) => [r.service_id, r.last_synced_at]));
      });
    try {
      await stored(driver, 3_000);
      const marked = '2026-11-27T01:00:00.000000Z';
      const assign = 'last_synced_at = ?';
      await driver.transaction(async (tx) => {
        await selectWhereIn(tx, 'authentications', ['service_id'], 'service_id', ['au-1', 'au-2']);
        // Read in this transaction: updated by rowid.
        expect(await updateWhereIn(tx, 'authentications', assign, [marked], 'service_id', ['au-1', 'au-2'])).toBe(2);
        // One not read: by key.
        expect(await updateWhereIn(tx, 'authentications', assign, [marked], 'service_id', ['au-1', 'au-3'])).toBe(2);
      });
      expect(await synced(['au-1', 'au-2', 'au-3', 'au-4'])).toEqual({
        'au-1': marked,
        'au-2': marked,
        'au-3': marked,
        'au-4': row(4).last_synced_at,
      });
      const later = '2026-11-27T02:00:00.000000Z';
      const latest = '2026-11-27T03:00:00.000000Z';
      await driver.transaction(async (tx) => {
        await selectWhereIn(tx, 'authentications', ['service_id'], 'service_id', ['au-5', 'au-6']);
        // A replace deletes and inserts au-5 (and moves it): its old rowid must not be updated.
        await tx.write(AUTHENTICATIONS, [{ ...row(5), raw: '{"replaced":true}' }], 'replace');
        expect(await updateWhereIn(tx, 'authentications', assign, [later], 'service_id', ['au-5', 'au-6'])).toBe(2);
        // Any other statement may move rows too.
        await selectWhereIn(tx, 'authentications', ['service_id'], 'service_id', ['au-7']);
        await tx.run("DELETE FROM authentications WHERE service_id = 'au-7'");
        await tx.write(AUTHENTICATIONS, [row(7)], 'fail');
        expect(await updateWhereIn(tx, 'authentications', assign, [later], 'service_id', ['au-7'])).toBe(1);
        // Read again: the rowid of a row the transaction wrote (from 2 ** 55), beside one stored before, by rowid.
        await selectWhereIn(tx, 'authentications', ['service_id'], 'service_id', ['au-7', 'au-8']);
        expect(await updateWhereIn(tx, 'authentications', assign, [latest], 'service_id', ['au-7', 'au-8'])).toBe(2);
        // Both read: the replace deletes them by their rowids, then inserts them anew.
        const replacing = [7, 8].map((i) => ({ ...row(i), last_synced_at: latest, raw: `{"again":${i}}` }));
        await tx.write(AUTHENTICATIONS, replacing, 'replace');
      });
      const [copies] = await driver.read((tx) =>
        tx.all(
          "SELECT count(*) AS n, count(DISTINCT service_id) AS ids, string_agg(raw, ',' ORDER BY raw) AS raws " +
            "FROM authentications WHERE service_id IN ('au-5', 'au-7', 'au-8')",
        ),
      );
      expect(copies).toEqual({ n: 3, ids: 3, raws: '{"again":7},{"again":8},{"replaced":true}' });
      expect(await synced(['au-5', 'au-6', 'au-7', 'au-8'])).toEqual({
        'au-5': later,
        'au-6': later,
        'au-7': latest,
        'au-8': latest,
      });
    } finally {
      await driver.close();
    }
  });
});

describe('DuckDB reads the columns of stored sessions by their rowids', () => {
  it('knows the rowids a replace deletes only when the transaction read every key', async () => {
    const driver = await DuckdbDriver.open(join(tempDir(), 'known.duckdb'), () => new Date('2026-11-27T00:00:00Z'));
    try {
      await stored(driver, 100);
      await driver.read(async (tx) => {
        const rowids = new DuckdbRowids(tx);
        await rowids.select('authentications', ['service_id'], 'service_id', ['au-1', 'au-2', 'absent']);
        const known = rowids.replaced(AUTHENTICATIONS, [row(1), row(2)]);
        expect(known).toHaveLength(2);
        const ids = "string_agg(service_id, ',' ORDER BY service_id) AS ids";
        const [found] = await tx.all(`SELECT ${ids} FROM authentications WHERE ${rowidCondition(known!)}`);
        expect(found).toEqual({ ids: 'au-1,au-2' });
        // One never read, and one read but not stored: the replace deletes by key.
        expect(rowids.replaced(AUTHENTICATIONS, [row(1), row(3)])).toBeNull();
        expect(rowids.replaced(AUTHENTICATIONS, [row(1), { ...row(0), service_id: 'absent' }])).toBeNull();
      });
    } finally {
      await driver.close();
    }
  });

  it('in the ranges that hold them, a filter of the scan that skips the row groups between', async () => {
    const driver = await DuckdbDriver.open(join(tempDir(), 'plan.duckdb'), () => new Date('2026-11-27T00:00:00Z'));
    try {
      await stored(driver, 40_000);
      await driver.read(async (tx) => {
        // The statements a read by key sends, kept to be explained.
        const sent: string[] = [];
        const recording: Pick<SqlExecutor, 'all' | 'run' | 'whereIn'> = {
          all: (sql, params) => (sent.push(sql), tx.all(sql, params)),
          run: (sql, params) => tx.run(sql, params),
          whereIn: (column, values) => tx.whereIn(column, values),
        };
        // Rows in two places, more than a row group apart.
        const ids = [
          ...Array.from({ length: 80 }, (_, i) => 1_000 + i),
          ...Array.from({ length: 85 }, (_, i) => 39_000 + i),
        ].map((i) => `au-${i}`);
        const read = await new DuckdbRowids(recording).select(
          'authentications',
          ['service_id', 'raw'],
          'service_id',
          ids,
        );
        expect(read.map((r) => r.service_id).sort()).toEqual([...ids].sort());
        expect(sent).toHaveLength(2);
        const plan = (await tx.all(`EXPLAIN ${sent[1]!}`)).map((r) => String(r.explain_value)).join('\n');
        // The scan's own filter names both places: a list alone (`rowid = ANY([…])`, `rowid IN (…)`) or a read by key
        // names none, and reads every row group's columns.
        const filters = plan.slice(plan.indexOf('SEQ_SCAN')).replace(/[│\s]+/g, ' ');
        expect(filters).toMatch(/Filters: .*rowid >= \d+.*rowid <= \d+.* OR .*rowid >= \d+.*rowid <= \d+/);
      });
    } finally {
      await driver.close();
    }
  });

  it('names a range per place, split at the widest gaps wider than a row group, 32 at most', () => {
    expect(rowidCondition(['5', '3', '4'])).toBe('(rowid BETWEEN 3 AND 5) AND rowid = ANY([5, 3, 4])');
    // A gap of one row group's width stays inside a range; a wider one splits it.
    const next = String(1 + ROW_GROUP_ROWS);
    expect(rowidCondition(['1', next, '40000'])).toBe(
      `(rowid BETWEEN 1 AND ${next} OR rowid BETWEEN 40000 AND 40000) AND rowid = ANY([1, ${next}, 40000])`,
    );
    // A transaction's own rows have rowids from 2 ** 55, past a JS number's integers.
    const local = (2n ** 55n + 7n).toString();
    expect(rowidCondition([local, '2'])).toBe(
      `(rowid BETWEEN 2 AND 2 OR rowid BETWEEN ${local} AND ${local}) AND rowid = ANY([${local}, 2])`,
    );
    const spread = Array.from({ length: 100 }, (_, i) => String(i * 100_000 + (i % 7) * 1_000));
    const ranges = rowidCondition(spread).match(/BETWEEN/g) ?? [];
    expect(ranges).toHaveLength(32);
  });
});

/** A migrated target holding `count` authentications, au-0 on. */
function pick(r: Row, columns: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(columns.map((c) => [c, r[c]]));
}

function sorted(rows: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  return [...rows].sort((a, b) => String(a.service_id).localeCompare(String(b.service_id)));
}
