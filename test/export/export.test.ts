import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { exportTarget } from '../../src/store/export/export.js';
import { openSink } from '../../src/store/open-sink.js';
import { TABLES } from '../../src/schema/schema.js';
import { VIEWS } from '../../src/store/views.js';
import { VIEW_PIECES } from '../../src/store/export/view-pieces.js';
import type { Dialect } from '../../src/schema/dialect.js';
import { TargetLockedError } from '../../src/store/drivers/target-locked-error.js';
import { holdDuckdbFile } from '../helpers/duckdb-holder.js';
import { cliError, runIvsync } from '../helpers/run-cli.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';
import { freshTarget, postgresUp, type FreshTarget } from '../targets/each-target.js';
import { readTarget } from '../targets/read-target.js';
import { comparableRows, duckdbRows } from './relation-rows.js';

const tempDir = useTempDir();
const REQUIRE_POSTGRES = process.env.IVS_REQUIRE_POSTGRES === '1';

/**
 * A target filled by a v2 backfill and sync (catalog) and a v1.4 backfill (newer, with warnings): rows in most tables.
 */
async function filledTarget(sim: RunningSimulator, dialect: Dialect): Promise<FreshTarget> {
  const target = await freshTarget(dialect);
  const dir = tempDir();
  const env = {
    IVS_BASE_URL: sim.url,
    IVS_API_TOKEN: 'test-token',
    IVS_DB: target.url,
    IVS_CONFIG: writeConfig(dir),
    IVS_RATE: '2000',
    IVS_API_VERSION: '2',
  };
  const backfill = ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)];
  expect((await runIvsync(backfill, env)).code).toBe(0);
  expect((await runIvsync(['sync'], env)).code).toBe(0);
  expect((await runIvsync(backfill, { ...env, IVS_API_VERSION: '1.4' })).code).toBe(0);
  return target;
}

async function expectExportHoldsEveryRow(
  source: string,
  read: (relation: string, file: string) => Promise<Array<Record<string, unknown>>>,
): Promise<void> {
  for (const def of TABLES) {
    const expected = comparableRows(def, await readTarget(source, `SELECT * FROM ${def.name}`));
    const got = comparableRows(def, await read(def.name, `${def.name}.parquet`));
    expect(got, def.name).toEqual(expected);
  }
  for (const view of VIEWS.filter((v) => v.name !== 'v_sync_health')) {
    const expected = await readTarget(source, `SELECT count(*) AS n FROM ${view.name}`);
    const got = await read(view.name, `${view.name}.parquet`);
    expect(got.length, view.name).toBe(Number(expected[0]!.n));
  }
}

/**
 * The export's times keep the microseconds the service sent: some sessions
 * have times that a millisecond copy would change, and each is the instant of
 * its created_epoch.
 */
async function expectMicroseconds(query: (sql: string) => Promise<Array<Record<string, unknown>>>): Promise<void> {
  const [row] = await query(
    'SELECT count(*) AS n, sum(CASE WHEN epoch_us(created_at) % 1000 <> 0 THEN 1 ELSE 0 END) AS sub_ms, ' +
      'sum(CASE WHEN epoch_us(created_at) = CAST(round(created_epoch * 1000000) AS BIGINT) THEN 1 ELSE 0 END) ' +
      'AS exact FROM {authentications}',
  );
  expect(Number(row!.sub_ms)).toBeGreaterThan(0);
  expect(Number(row!.exact)).toBe(Number(row!.n));
}

const sources: Dialect[] = ['sqlite', 'duckdb', 'postgres'];

describe.each(sources)('export from a %s target', (dialect) => {
  const unavailable = dialect === 'postgres' && !postgresUp;
  let sim: RunningSimulator;
  let source: FreshTarget | undefined;

  beforeAll(async () => {
    if (unavailable) return;
    sim = await startSimulator({ sessions: 300, rate: 2000, burst: 2000, seed: 7, catalogUnavailableShare: 0 });
    sim.world.injectBadItem('authentications', 'epoch_string', { epoch: HISTORY_START + 86_400 * 30 });
    source = await filledTarget(sim, dialect);
  });
  afterAll(async () => {
    await source?.dispose();
    await sim?.close();
  });

  it.runIf(unavailable && REQUIRE_POSTGRES)('has a reachable Postgres (IVS_REQUIRE_POSTGRES=1)', () => {
    throw new Error(
      'IVS_TEST_POSTGRES_URL is not reachable, and IVS_REQUIRE_POSTGRES=1 forbids skipping the postgres export tests',
    );
  });

  it.skipIf(unavailable)('--to duckdb: every row of every table, typed columns, live views', async () => {
    const path = join(tempDir(), 'copy', 'analyst.duckdb');
    const result = await runIvsync(['export', '--db', source!.url, '--to', `duckdb:${path}`, '--json']);
    expect(cliError(result.stderr)).toBeUndefined();
    expect(result.code).toBe(0);
    const reported = JSON.parse(result.stdout) as { relations: Array<{ name: string; kind: string; rows: number }> };
    expect(reported.relations.map((r) => r.name)).toEqual([...TABLES.map((t) => t.name), ...VIEWS.map((v) => v.name)]);
    // The non-empty tables really are non-empty: the comparison below is not of nothing.
    const rows = new Map(reported.relations.map((r) => [r.name, r.rows]));
    for (const name of [
      'authentications',
      'fingerprints',
      'session_text_fields',
      'session_warnings',
      'session_history',
      'sync_windows',
      'sync_runs',
      'rejected_items',
      'catalog_brands',
      'catalog_categories',
    ]) {
      expect(rows.get(name), name).toBeGreaterThan(0);
    }
    expect(readdirSync(join(path, '..'))).toEqual(['analyst.duckdb']);

    await expectExportHoldsEveryRow(source!.url, (relation) => duckdbRows(path, `SELECT * FROM ${relation}`));
    const types = await duckdbRows(
      path,
      "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'authentications' AND " +
        "column_name IN ('result_final', 'raw', 'created_epoch', 'update_counter', 'service_id', 'created_at') " +
        'ORDER BY column_name',
    );
    expect(types).toEqual([
      { column_name: 'created_at', data_type: 'TIMESTAMP WITH TIME ZONE' },
      { column_name: 'created_epoch', data_type: 'DOUBLE' },
      { column_name: 'raw', data_type: 'JSON' },
      { column_name: 'result_final', data_type: 'BOOLEAN' },
      { column_name: 'service_id', data_type: 'VARCHAR' },
      { column_name: 'update_counter', data_type: 'BIGINT' },
    ]);
    // Every time column of every table, whatever the source keeps it as (SQLite: text).
    const timeTypes = await duckdbRows(
      path,
      "SELECT table_name || '.' || column_name AS c, data_type FROM information_schema.columns WHERE " +
        "column_name LIKE '%\\_at' ESCAPE '\\' OR column_name = 'missing_since'",
    );
    expect(timeTypes.length).toBeGreaterThan(15);
    for (const { c, data_type } of timeTypes) expect(data_type, String(c)).toBe('TIMESTAMP WITH TIME ZONE');
    await expectMicroseconds((sql) => duckdbRows(path, sql.replace('{authentications}', 'authentications')));
    const views = await duckdbRows(
      path,
      "SELECT table_name FROM information_schema.tables WHERE table_type = 'VIEW' ORDER BY 1",
    );
    expect(views.map((v) => v.table_name)).toEqual(VIEWS.map((v) => v.name).sort());
  });

  it.skipIf(unavailable)('--to parquet: one file per table and view, every row', async () => {
    const dir = join(tempDir(), 'parquet');
    const result = await runIvsync(['export', '--db', source!.url, '--to', `parquet:${dir}`]);
    expect(cliError(result.stderr)).toBeUndefined();
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`exported ${TABLES.length} tables and ${VIEWS.length} views to `);
    expect(readdirSync(dir).sort()).toEqual(
      [...TABLES.map((t) => `${t.name}.parquet`), ...VIEWS.map((v) => `${v.name}.parquet`)].sort(),
    );
    await expectExportHoldsEveryRow(source!.url, (_relation, file) =>
      duckdbRows(':memory:', `SELECT * FROM read_parquet('${join(dir, file)}')`),
    );
    const types = await duckdbRows(
      ':memory:',
      `SELECT typeof(result_final) AS b, typeof(created_epoch) AS d FROM ` +
        `read_parquet('${join(dir, 'authentications.parquet')}') LIMIT 1`,
    );
    expect(types).toEqual([{ b: 'BOOLEAN', d: 'DOUBLE' }]);
    // Times are UTC timestamps in microseconds in every file.
    const schema = await duckdbRows(
      ':memory:',
      `SELECT file_name, name, type, logical_type FROM parquet_schema('${join(dir, '*.parquet')}')`,
    );
    for (const def of TABLES) {
      for (const column of def.columns.filter((c) => c.type === 'timestamp')) {
        const found = schema.find((s) => s.file_name === join(dir, `${def.name}.parquet`) && s.name === column.name);
        expect(found, `${def.name}.${column.name}`).toMatchObject({
          type: 'INT64',
          logical_type: expect.stringMatching(
            /^TimestampType\(isAdjustedToUTC=1, unit=TimeUnit\(.*MICROS=MicroSeconds\(\)/,
          ),
        });
      }
    }
    await expectMicroseconds((sql) =>
      duckdbRows(
        ':memory:',
        sql.replace('{authentications}', `read_parquet('${join(dir, 'authentications.parquet')}')`),
      ),
    );
  });
});

describe('export safety', () => {
  it('refuses to overwrite an export unless --force', async () => {
    const dir = tempDir();
    const db = `sqlite:${join(dir, 'src.sqlite')}`;
    const out = join(dir, 'out.duckdb');
    // export only reads: the target must exist.
    expect((await runIvsync(['migrate', '--db', db])).code).toBe(0);
    expect((await runIvsync(['export', '--db', db, '--to', `duckdb:${out}`])).code).toBe(0);
    const again = await runIvsync(['export', '--db', db, '--to', `duckdb:${out}`]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/exists already: pass --force/);
    expect((await runIvsync(['export', '--db', db, '--to', `duckdb:${out}`, '--force'])).code).toBe(0);

    const pq = join(dir, 'pq');
    expect((await runIvsync(['export', '--db', db, '--to', `parquet:${pq}`])).code).toBe(0);
    expect((await runIvsync(['export', '--db', db, '--to', `parquet:${pq}`])).stderr).toMatch(
      new RegExp(
        `authentications\\.parquet exists already \\(and ${TABLES.length + VIEWS.length - 1} more\\): pass --force`,
      ),
    );
    expect((await runIvsync(['export', '--db', db, '--to', `parquet:${pq}`, '--force'])).code).toBe(0);
    // The staging database is gone.
    expect(readdirSync(pq).filter((f) => !f.endsWith('.parquet'))).toEqual([]);
  });

  it('refuses to export a DuckDB target onto itself, and an unknown --to', async () => {
    const dir = tempDir();
    const path = join(dir, 'x.duckdb');
    const self = await runIvsync(['export', '--db', `duckdb:${path}`, '--to', `duckdb:${path}`]);
    expect(self.code).toBe(1);
    expect(self.stderr).toMatch(/onto itself/);
    const unknown = await runIvsync(['export', '--db', `duckdb:${path}`, '--to', `csv:${dir}`]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/expected duckdb:PATH or parquet:DIR/);
    expect(existsSync(join(dir, 'csv'))).toBe(false);
  });

  it('a DuckDB source another process holds is TargetLockedError naming it, and no export is left', async () => {
    const dir = tempDir();
    const path = join(dir, 'held.duckdb');
    expect((await runIvsync(['migrate', '--db', `duckdb:${path}`])).code).toBe(0);
    const holder = await holdDuckdbFile(path);
    try {
      const out = join(dir, 'pq');
      const refused = exportTarget({ duckdbFile: path }, { kind: 'parquet', dir: out });
      await expect(refused).rejects.toBeInstanceOf(TargetLockedError);
      await expect(refused).rejects.toThrow(`duckdb:${path} is open in another process`);
      expect(readdirSync(out)).toEqual([]);
    } finally {
      await holder.release();
    }
  });

  it('pages through composite primary keys in small chunks without losing or repeating a row', async () => {
    const sim = await startSimulator({ sessions: 60, rate: 2000, burst: 2000, seed: 43 });
    try {
      const source = await filledTarget(sim, 'sqlite');
      try {
        const sink = await openSink(source.url);
        const path = join(tempDir(), 'chunked.duckdb');
        try {
          const report = await exportTarget(sink, { kind: 'duckdb', path }, { chunkRows: 3 });
          expect(report.relations.find((r) => r.name === 'session_text_fields')!.rows).toBeGreaterThan(6);
        } finally {
          await sink.close();
        }
        for (const def of TABLES.filter((t) =>
          ['session_text_fields', 'sync_windows', 'authentications', 'catalog_materials'].includes(t.name),
        )) {
          const expected = comparableRows(def, await readTarget(source.url, `SELECT * FROM ${def.name}`));
          expect(comparableRows(def, await duckdbRows(path, `SELECT * FROM ${def.name}`)), def.name).toEqual(expected);
        }
      } finally {
        await source.dispose();
      }
    } finally {
      await sim.close();
    }
  });
});

describe('views that grow with the history, run a range of sessions at a time', () => {
  const asText = (rows: ReadonlyArray<Record<string, unknown>>): string[] => rows.map((r) => JSON.stringify(r));

  it('give the rows of the whole view, in its order where it has one, to Parquet and counted in DuckDB', async () => {
    const sim = await startSimulator({ sessions: 120, rate: 2000, burst: 2000, seed: 11 });
    try {
      const source = await filledTarget(sim, 'sqlite');
      try {
        const sink = await openSink(source.url);
        const whole = join(tempDir(), 'whole');
        const cut = join(tempDir(), 'cut');
        const path = join(tempDir(), 'cut.duckdb');
        let parquet: Awaited<ReturnType<typeof exportTarget>>;
        let duckdb: Awaited<ReturnType<typeof exportTarget>>;
        try {
          await exportTarget(sink, { kind: 'parquet', dir: whole });
          parquet = await exportTarget(sink, { kind: 'parquet', dir: cut }, { viewPieceRows: 20 });
          duckdb = await exportTarget(sink, { kind: 'duckdb', path }, { viewPieceRows: 20 });
        } finally {
          await sink.close();
        }
        for (const [name, spec] of Object.entries(VIEW_PIECES)) {
          const read = (dir: string) =>
            duckdbRows(':memory:', `SELECT * FROM read_parquet('${join(dir, name)}.parquet')`);
          const expected = await read(whole);
          const got = await read(cut);
          expect(expected.length, name).toBeGreaterThan(20);
          expect(parquet.relations.find((r) => r.name === name)?.pieces, name).toBeGreaterThan(2);
          if (spec.ordered === true) expect(asText(got), name).toEqual(asText(expected));
          else expect(asText(got).sort(), name).toEqual(asText(expected).sort());
          expect(
            duckdb.relations.find((r) => r.name === name),
            name,
          ).toMatchObject({
            rows: expected.length,
            pieces: expect.any(Number) as unknown,
          });
        }
        // Only the export's files are left: the pieces and the relations' clustered copies are removed.
        expect(readdirSync(dirname(path))).toEqual(['cut.duckdb']);
        expect(readdirSync(cut).sort()).toEqual(
          [...TABLES.map((t) => `${t.name}.parquet`), ...VIEWS.map((v) => `${v.name}.parquet`)].sort(),
        );
      } finally {
        await source.dispose();
      }
    } finally {
      await sim.close();
    }
  });
});
