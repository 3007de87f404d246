import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../migrations/index.js';
import { SqliteDriver } from '../../src/store/drivers/sqlite/sqlite-driver.js';
import { table } from '../../src/schema/schema.js';
import { useTempDir } from '../helpers/temp-dir.js';

const FIELDS = table('session_text_fields');
const field = (id: string, key: string, value: string | null = 'v') => ({ service_id: id, key, value });
/** More rows than one INSERT statement takes, so a write is several statements. */
const many = (id: string, count: number) => Array.from({ length: count }, (_, i) => field(id, `k${i}`));

// The driver's inserts stop at the failing row (OR FAIL) instead of undoing their own statement: these hold
// what that relies on, that a failed write leaves none of its transaction behind.
describe('SQLite writes that fail partway', () => {
  const tempDir = useTempDir();

  async function withDriver(work: (driver: SqliteDriver) => Promise<void>): Promise<void> {
    const driver = await SqliteDriver.open(join(tempDir(), 't.sqlite'));
    try {
      await driver.migrate(MIGRATIONS);
      await work(driver);
    } finally {
      await driver.close();
    }
  }

  const stored = (driver: SqliteDriver) =>
    driver.read((tx) => tx.all('SELECT service_id, key, value FROM session_text_fields ORDER BY service_id, key'));

  it('a key met twice in the second statement of a write keeps none of the transaction', async () => {
    await withDriver(async (driver) => {
      await driver.transaction((tx) => tx.write(FIELDS, [field('before', 'k')], 'fail'));
      const rows = [...many('a', 100), field('a', 'k3')];
      await expect(
        driver.transaction(async (tx) => {
          await tx.write(FIELDS, [field('b', 'k')], 'fail');
          await tx.write(FIELDS, rows, 'fail');
        }),
      ).rejects.toThrow(/UNIQUE/);
      expect(await stored(driver)).toEqual([field('before', 'k')]);
      // The connection is out of the failed transaction: the next write commits.
      await driver.transaction((tx) => tx.write(FIELDS, many('c', 70), 'fail'));
      expect(await stored(driver)).toHaveLength(71);
    });
  });

  it('ignore passes over a stored key, and a missing value it may not pass over still fails the write', async () => {
    await withDriver(async (driver) => {
      await driver.transaction((tx) => tx.write(FIELDS, [field('a', 'k1', 'first')], 'fail'));
      await driver.transaction((tx) => tx.write(FIELDS, [field('a', 'k1', 'again'), field('a', 'k2')], 'ignore'));
      expect(await stored(driver)).toEqual([field('a', 'k1', 'first'), field('a', 'k2')]);

      const missingKey = { service_id: 'b', key: null, value: 'v' };
      await expect(
        driver.transaction((tx) => tx.write(FIELDS, [...many('b', 80), missingKey], 'ignore')),
      ).rejects.toThrow(/NOT NULL/);
      expect(await stored(driver)).toHaveLength(2);
    });
  });
});

describe('SQLite statements whose text changes with every call', () => {
  const tempDir = useTempDir();

  it('are not all kept: the connection holds a bounded number, and one dropped is prepared again', async () => {
    const driver = await SqliteDriver.open(join(tempDir(), 't.sqlite'));
    try {
      await driver.migrate(MIGRATIONS);
      const fixed = 'SELECT count(*) AS n FROM session_text_fields';
      await driver.read((tx) => tx.all(fixed));
      // As texts that change with what they carry (an INSERT's with its row count): a thousand distinct ones.
      for (let i = 1; i <= 1_000; i++) {
        const [row] = await driver.read((tx) => tx.all(`SELECT ? + ${i} AS n`, [i]));
        expect(row).toEqual({ n: 2 * i });
      }
      expect(driver.preparedStatements).toBeLessThanOrEqual(200);
      expect(await driver.read((tx) => tx.all(fixed))).toEqual([{ n: 0 }]);
    } finally {
      await driver.close();
    }
  });
});
