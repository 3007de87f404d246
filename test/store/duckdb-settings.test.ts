import { MIGRATIONS } from '../../migrations/index.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DuckdbDriver } from '../../src/store/drivers/duckdb/duckdb-driver.js';
import { DuckDBInstance } from '@duckdb/node-api';
import { ROW_GROUP_ROWS, STORAGE_VERSION } from '../../src/store/drivers/duckdb/duckdb-open.js';
import { openSink } from '../../src/store/open-sink.js';
import { table } from '../../src/schema/schema.js';
import { useTempDir } from '../helpers/temp-dir.js';

/*
 * A DuckDB target is opened with a bounded buffer pool: DuckDB's own default
 * (80% of the machine's memory) lets a process's RSS follow the size of the
 * tables. The settings are read back from DuckDB itself.
 */

const tempDir = useTempDir();

describe('DuckDB target settings', () => {
  it('bounds the buffer pool and the threads, and drops the insertion-order promise', async () => {
    const sink = await openSink(`duckdb:${join(tempDir(), 'bounded.duckdb')}`);
    try {
      const [row] = await sink.query(
        "SELECT current_setting('memory_limit') AS memory_limit, current_setting('threads') AS threads, " +
          "current_setting('preserve_insertion_order') AS ordered, current_setting('checkpoint_threshold') AS " +
          'checkpoint',
      );
      // DuckDB prints the limit in MiB of its own rounding: 96 MB reads back as 91.5 MiB.
      expect(row?.memory_limit).toMatch(/^9\d(\.\d)? MiB$/);
      expect(Number(row?.threads)).toBe(1);
      expect(row?.ordered).toBe(false);
      // 8 MB: un-checkpointed rows, held uncompressed in the pool, stay a fraction of it, with room for what a
      // checkpoint of a long history pins.
      expect(row?.checkpoint).toMatch(/^7\.\d MiB$|^8(\.0)? MiB$/);
    } finally {
      await sink.close();
    }
  });

  it('stores rows in row groups of ROW_GROUP_ROWS, which bound what one checkpoint rewrites', async () => {
    const driver = await DuckdbDriver.open(
      join(tempDir(), 'groups.duckdb'),
      () => new Date('2026-11-24T00:00:00.000Z'),
    );
    try {
      await driver.migrate(MIGRATIONS);
      const rows = Array.from({ length: ROW_GROUP_ROWS + 10 }, (_, i) => ({
        service_id: `S${i}`,
        key: 'k',
        value: 'v',
      }));
      await driver.transaction((tx) => tx.write(table('session_text_fields'), rows, 'fail'));
      await driver.read((tx) => tx.run('CHECKPOINT'));
      const [groups] = await driver.read((tx) =>
        tx.all("SELECT count(DISTINCT row_group_id) AS n FROM pragma_storage_info('session_text_fields')"),
      );
      expect(ROW_GROUP_ROWS).toBeLessThan(122_880);
      expect(groups?.n).toBe(2);
    } finally {
      await driver.close();
    }
  });

  it('opens the file anew when its table blocks pass their share of the pool, keeping every row', async () => {
    // Each instance gets its own variable: after the file is opened anew, the one set before is gone.
    const opened = async (tableBlocksMb?: number): Promise<{ reopened: boolean; rows: unknown }> => {
      const file = join(tempDir(), `blocks-${tableBlocksMb ?? 'default'}.duckdb`);
      const driver = await DuckdbDriver.open(file, () => new Date('2026-11-27T00:00:00.000Z'), { tableBlocksMb });
      try {
        await driver.migrate(MIGRATIONS);
        await driver.read((tx) => tx.run('SET VARIABLE opened_before = 1'));
        const rows = (from: number) =>
          Array.from({ length: 20_000 }, (_, i) => ({ service_id: `S${from + i}`, key: 'k', value: 'v'.repeat(40) }));
        await driver.transaction((tx) => tx.write(table('session_text_fields'), rows(0), 'fail'));
        // Checkpointed rows are the table blocks DuckDB keeps in its pool.
        await driver.read((tx) => tx.run('CHECKPOINT'));
        await driver.transaction((tx) => tx.write(table('session_text_fields'), rows(20_000), 'fail'));
        const [row] = await driver.read((tx) =>
          tx.all("SELECT getvariable('opened_before') AS before, count(*) AS n FROM session_text_fields"),
        );
        return { reopened: row?.before === null, rows: row?.n };
      } finally {
        await driver.close();
      }
    };
    expect(await opened(0.01)).toEqual({ reopened: true, rows: 40_000 });
    expect(await opened()).toEqual({ reopened: false, rows: 40_000 });
  });

  it("creates a file in STORAGE_VERSION's format; a file that exists keeps the format it was made in", async () => {
    // The format a file's header names, read by a DuckDB of its own that opens the file plainly.
    const formatOf = async (file: string): Promise<string> => {
      const instance = await DuckDBInstance.create(':memory:');
      const connection = await instance.connect();
      try {
        await connection.run(`ATTACH '${file}' AS f (READ_ONLY)`);
        const reader = await connection.runAndReadAll(
          "SELECT tags['storage_version'] AS format FROM duckdb_databases() WHERE database_name = 'f'",
        );
        return String(reader.getRowObjectsJson()[0]?.format);
      } finally {
        connection.closeSync();
        instance.closeSync();
      }
    };
    const written = async (file: string): Promise<void> => {
      const driver = await DuckdbDriver.open(file, () => new Date('2026-11-29T00:00:00.000Z'));
      try {
        await driver.migrate(MIGRATIONS);
        await driver.transaction((tx) =>
          tx.write(table('session_text_fields'), [{ service_id: 'S1', key: 'k', value: 'v' }], 'fail'),
        );
        await driver.read((tx) => tx.run('CHECKPOINT'));
      } finally {
        await driver.close();
      }
    };
    const created = join(tempDir(), 'created.duckdb');
    await written(created);
    expect(STORAGE_VERSION).toBe('v1.4.0');
    expect(await formatOf(created)).toMatch(/^v1\.4\.0/);

    // A file DuckDB made with its own default format, as every target before STORAGE_VERSION was.
    const older = join(tempDir(), 'older.duckdb');
    const instance = await DuckDBInstance.create(older);
    const connection = await instance.connect();
    await connection.run('CREATE TABLE made_before (id INTEGER)');
    connection.closeSync();
    instance.closeSync();
    const before = await formatOf(older);
    expect(before).not.toMatch(/^v1\.4\.0/);
    await written(older);
    expect(await formatOf(older)).toBe(before);
  });
});
