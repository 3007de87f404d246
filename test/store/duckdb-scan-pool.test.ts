import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DuckdbDriver } from '../../src/store/drivers/duckdb/duckdb-driver.js';
import { scanPoolMegabytes } from '../../src/store/drivers/duckdb/duckdb-scan-pool.js';
import type { SqlExecutor } from '../../src/store/drivers/sql-driver.js';
import { stored } from '../helpers/duckdb-rows.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const absent = (count: number) => Array.from({ length: count }, (_, i) => `absent-${i}`);

/** DuckDB's memory_limit as it shows it (in MiB), as a number of MB. */
async function poolMb(tx: SqlExecutor): Promise<number> {
  const [row] = await tx.all("SELECT current_setting('memory_limit') AS limit");
  const [, mib] = /^([\d.]+) MiB$/.exec(String(row?.limit)) ?? [];
  return Math.round((Number(mib) * 2 ** 20) / 1e6);
}

describe("DuckDB's pool while a transaction reads the tables for ids the filter may hold", () => {
  it('is two thirds of the pool, 64 MB at the least, and never more than the pool', () => {
    expect(scanPoolMegabytes(96)).toBe(64);
    expect(scanPoolMegabytes(300)).toBe(200);
    expect(scanPoolMegabytes(64)).toBe(64);
  });

  it('narrows when the filter says "maybe" to a few ids, for that transaction only, then is whole', async () => {
    // The filter built at the first question, as in a backfill that has inserted enough new sessions.
    const driver = await DuckdbDriver.open(join(tempDir(), 'scan.duckdb'), () => new Date('2026-11-30T00:00:00Z'), {
      heldIdsAfterNew: 0,
    });
    try {
      await stored(driver, 100);
      // Ids the filter knows are new: no read follows, the pool stays whole.
      await driver.transaction(async (tx) => {
        expect(await tx.mayHold!('sessions', ['absent-1', 'absent-2'])).toEqual([]);
        expect(await poolMb(tx)).toBe(96);
      });
      // One stored id among twenty: the merge reads the table next, for next to nothing, with the smaller pool.
      await driver.transaction(async (tx) => {
        expect(await tx.mayHold!('sessions', ['au-7', ...absent(19)])).toEqual(['au-7']);
        expect(await poolMb(tx)).toBe(64);
        await tx.run("UPDATE authentications SET raw = '{}' WHERE service_id = 'au-7'");
      });
      await driver.read(async (tx) => expect(await poolMb(tx)).toBe(96));
      // A refresh's page, stored sessions mostly: its read finds them, and the next page's scans the same blocks.
      await driver.transaction(async (tx) => {
        expect(await tx.mayHold!('sessions', ['au-1', 'au-2', 'absent-1'])).toEqual(['au-1', 'au-2']);
        expect(await poolMb(tx)).toBe(96);
      });
      // A transaction that fails after it narrowed: rolled back, and the pool whole again.
      await expect(
        driver.transaction(async (tx) => {
          await tx.mayHold!('sessions', ['au-8', ...absent(10)]);
          expect(await poolMb(tx)).toBe(64);
          await tx.run('SELECT * FROM no_such_table');
        }),
      ).rejects.toThrow(/no_such_table/);
      await driver.read(async (tx) => expect(await poolMb(tx)).toBe(96));
    } finally {
      await driver.close();
    }
  });
});
