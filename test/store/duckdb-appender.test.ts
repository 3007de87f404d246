import { MIGRATIONS } from '../../migrations/index.js';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { DuckdbDriver } from '../../src/store/drivers/duckdb/duckdb-driver.js';
import { table } from '../../src/schema/schema.js';
import type { Row } from '../../src/store/drivers/sql-driver.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { auth } from './fixtures.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Collects garbage until the finalizers of what was dropped have run. */
async function collect(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    gc();
    await nextTurn();
  }
}

const clock = () => new Date('2026-11-24T00:00:00.000Z');

/** An authentications row, as the driver writes it. */
const row = (...args: Parameters<typeof auth>): Row => ({ ...auth(...args).row });

describe('DuckDB Appender after a refused row', () => {
  const tempDir = useTempDir();

  it('leaves nothing behind that a later transaction trips on, even once the Appender is collected', async () => {
    const driver = await DuckdbDriver.open(join(tempDir(), 't.duckdb'), clock);
    try {
      await driver.migrate(MIGRATIONS);
      const def = table('authentications');
      // `source` is NOT NULL: rows proven absent are appended straight into the table, whose flush refuses it.
      // The error is kept as text, not as the object, which would keep the Appender from being collected.
      const refused = await driver
        .transaction((tx) => tx.write(def, [row('bad', { source: null as never })], 'fail'))
        .then(
          () => null,
          (error: unknown) => String(error),
        );
      expect(refused).toMatch(/NOT NULL/);

      await driver.transaction(async (tx) => {
        await tx.write(def, [row('good')], 'fail');
        await collect();
        await tx.write(def, [row('also-good')], 'fail');
      });
      const rows = await driver.read((tx) => tx.all('SELECT service_id FROM authentications ORDER BY service_id'));
      expect(rows.map((r) => r.service_id)).toEqual(['also-good', 'good']);
    } finally {
      await driver.close();
    }
  });
});
