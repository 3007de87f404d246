import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../migrations/index.js';
import { duckdbDownStatements } from '../../src/store/drivers/duckdb/duckdb-ddl.js';
import { DuckdbDriver } from '../../src/store/drivers/duckdb/duckdb-driver.js';
import { DUCKDB_KEYLESS_TABLES } from '../../src/store/drivers/duckdb/duckdb-keyless.js';
import { migrateDuckdb } from '../../src/store/drivers/duckdb/duckdb-migrator.js';
import { table } from '../../src/schema/schema.js';
import { useTempDir } from '../helpers/temp-dir.js';

const clock = () => new Date('2026-11-24T00:00:00.000Z');

/** Tables of the file that have a PRIMARY KEY constraint. */
async function keyedTables(driver: DuckdbDriver): Promise<string[]> {
  const rows = await driver.read((tx) =>
    tx.all(
      'SELECT table_name FROM duckdb_constraints() WHERE database_name = current_database() AND ' +
        "constraint_type = 'PRIMARY KEY' ORDER BY table_name",
    ),
  );
  return rows.map((r) => String(r.table_name));
}

describe('DuckDB session tables without a key index', () => {
  const tempDir = useTempDir();

  it('a new target keeps the key of its small tables only', async () => {
    const driver = await DuckdbDriver.open(join(tempDir(), 't.duckdb'), clock);
    try {
      await driver.migrate(MIGRATIONS);
      const keyed = await keyedTables(driver);
      for (const name of DUCKDB_KEYLESS_TABLES) expect(keyed).not.toContain(name);
      expect(keyed).toEqual(expect.arrayContaining(['session_refresh', 'sync_windows', 'webhook_deliveries']));
    } finally {
      await driver.close();
    }
  });

  it('replace and ignore keep one row per key, as ON CONFLICT does on a keyed table', async () => {
    const driver = await DuckdbDriver.open(join(tempDir(), 't.duckdb'), clock);
    try {
      await driver.migrate(MIGRATIONS);
      const def = table('session_text_fields');
      const field = (id: string, key: string, value: string) => ({ service_id: id, key, value });
      await driver.transaction((tx) =>
        tx.write(def, [field('a', 'k1', 'a1'), field('a', 'k2', 'a2'), field('b', 'k1', 'b1')], 'fail'),
      );
      await driver.transaction((tx) =>
        tx.write(def, [field('a', 'k1', 'a1 again'), field('c', 'k1', 'c1')], 'replace'),
      );
      await driver.transaction((tx) =>
        tx.write(def, [field('b', 'k1', 'b1 ignored'), field('d', 'k1', 'd1')], 'ignore'),
      );
      const rows = await driver.read((tx) =>
        tx.all('SELECT service_id, key, value FROM session_text_fields ORDER BY service_id, key'),
      );
      expect(rows).toEqual([
        field('a', 'k1', 'a1 again'),
        field('a', 'k2', 'a2'),
        field('b', 'k1', 'b1'),
        field('c', 'k1', 'c1'),
        field('d', 'k1', 'd1'),
      ]);
    } finally {
      await driver.close();
    }
  });

  it(
    'a target created with the keys loses them on ' + 'migrate, rows and views kept; reverting puts them back',
    async () => {
      const path = join(tempDir(), 'old.duckdb');
      const keyless = MIGRATIONS.find((m) => m.name === '20261124000000_duckdb_keyless')!;
      const before = MIGRATIONS.slice(0, MIGRATIONS.indexOf(keyless));
      // The target as the release before: the migrations before it applied, the session tables with their keys.
      const instance = await DuckDBInstance.create(path);
      const connection = await instance.connect();
      const db = {
        all: async (sql: string, params: readonly unknown[] = []) =>
          (await connection.runAndReadAll(sql, params as never)).getRowObjectsJS(),
        run: async (sql: string, params: readonly unknown[] = []) =>
          Number((await connection.run(sql, params as never)).rowsChanged),
      };
      await migrateDuckdb(db, before, '2026-11-23T00:00:00.000Z');
      await db.run("INSERT INTO session_text_fields VALUES ('a', 'k1', 'v1'), ('a', 'k2', 'v2')");
      await expect(db.run("INSERT INTO session_text_fields VALUES ('a', 'k1', 'again')")).rejects.toThrow(
        /PRIMARY KEY|duplicate key/i,
      );
      connection.closeSync();
      instance.closeSync();

      const driver = await DuckdbDriver.open(path, clock);
      try {
        expect(await driver.migrate(MIGRATIONS)).toEqual(MIGRATIONS.slice(before.length).map((m) => m.name));
        const keyed = await keyedTables(driver);
        for (const name of DUCKDB_KEYLESS_TABLES) expect(keyed).not.toContain(name);
        expect(await driver.read((tx) => tx.all('SELECT key, value FROM session_text_fields ORDER BY key'))).toEqual([
          { key: 'k1', value: 'v1' },
          { key: 'k2', value: 'v2' },
        ]);
        expect(await driver.read((tx) => tx.all('SELECT count(*) AS n FROM v_daily_results'))).toEqual([{ n: 0 }]);
        await driver.read(async (tx) => {
          for (const sql of duckdbDownStatements(keyless.steps)) await tx.run(sql);
        });
        // The tables that step took the keys off get them back; those created keyless later keep none.
        const step = keyless.steps[0]!;
        const restored = step.kind === 'duckdbKeyless' ? step.tables.map((t) => t.name) : [];
        expect(restored).toHaveLength(5);
        expect(await keyedTables(driver)).toEqual(expect.arrayContaining(restored));
      } finally {
        await driver.close();
      }
    },
  );
});
