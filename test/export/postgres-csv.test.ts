import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import type { CsvCopy } from '../../src/store/drivers/sql-driver.js';
import { exportTarget, type ExportSource } from '../../src/store/export/export.js';
import { CSV_MAX_LINE_BYTES } from '../../src/store/export/csv-pieces.js';
import { openSink } from '../../src/store/open-sink.js';
import type { QueryableSink } from '../../src/store/sql-sink.js';
import { POSTGRES_URL } from '../helpers/postgres.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { freshTarget, postgresUp, type FreshTarget } from '../targets/each-target.js';
import { duckdbRows } from './relation-rows.js';

const tempDir = useTempDir();

/** A piece per page of the table (8 KB): the tables below take many. */
const PAGE_PIECES = 8192;

/** Runs `sql` as another client of the server. */
async function asAdmin(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/** What a test is told of the CSV pieces an export reads (the table each belongs to). */
interface PieceWatch {
  /** After each chunk of a piece is written. */
  afterWrite?: (table: string) => void;
  /** After each piece is whole. */
  afterEnd?: (table: string) => Promise<void> | void;
}

/** The sink as an ExportSource whose CSV pieces `watch` is told of. */
function watchedSource(sink: QueryableSink, watch: PieceWatch): ExportSource {
  return {
    query: (sql, params) => sink.query(sql, params),
    scan: (sql, visit) => sink.scan!(sql, visit),
    copyCsv: (copy: CsvCopy) =>
      sink.copyCsv!({
        ...copy,
        piece: () => {
          const piece = copy.piece();
          return {
            write: async (chunk) => {
              await piece.write(chunk);
              watch.afterWrite?.(copy.table);
            },
            end: async () => {
              await piece.end();
              await watch.afterEnd?.(copy.table);
            },
          };
        },
      }),
  };
}

async function withPostgresTarget(work: (target: FreshTarget, schema: string, sink: QueryableSink) => Promise<void>) {
  const target = await freshTarget('postgres');
  const schema = new URL(target.url).searchParams.get('schema')!;
  const sink = await openSink(target.url);
  try {
    await work(target, schema, sink);
  } finally {
    await sink.close();
    await target.dispose();
  }
}

describe('an export from Postgres by CSV pieces', () => {
  it.skipIf(!postgresUp)(
    'gives every value as the chunked path does: line breaks, quotes, empty texts and NULLs, JSON as written, ' +
      'doubles, large integers, microseconds',
    async () => {
      await withPostgresTarget(async (_target, schema, sink) => {
        const columns =
          'service_id, account, api_version, source, first_seen_at, last_synced_at, brand_display, ' +
          'material_display, result_display, username, result_final, retake_required, created_at, created_epoch, ' +
          'update_counter, raw';
        await asAdmin(
          `INSERT INTO "${schema}".authentications (${columns}) VALUES ` +
            `('a', 'default', 'v2', 'crawl', '2026-01-02T03:04:05.123456Z', '2026-01-02T03:04:05Z', ` +
            `E'line\\nbreak, "quoted", a \\\\ backslash', '', NULL, 'ü日本🎉', true, false, ` +
            `'2026-01-02T03:04:05.000001Z', 0.30000000000000004, 9007199254740991, ` +
            `'{"b": 1,  "a": "x\\u0000y", "b": "line\\nbreak"}'), ` +
            `('b', 'default', 'v2', 'crawl', '2026-01-02T03:04:05Z', '2026-01-02T03:04:05Z', NULL, NULL, NULL, ` +
            `NULL, NULL, NULL, NULL, 1e-300, -5, '[]'); ` +
            `INSERT INTO "${schema}".authentications (${columns}) SELECT 'f' || i, 'default', 'v2', 'crawl', ` +
            `now(), now(), 'Brand ' || i, ',', '"', E'\\r\\n', i % 2 = 0, NULL, now(), i / 7.0, i, ` +
            `json_build_object('i', i)::text::json FROM generate_series(1, 2000) AS i`,
        );
        let pieces = 0;
        const dir = tempDir();
        const byCsv = join(dir, 'csv.duckdb');
        await exportTarget(
          watchedSource(sink, {
            afterEnd: (table) => {
              if (table === 'authentications') pieces++;
            },
          }),
          { kind: 'duckdb', path: byCsv },
          { csvPieceBytes: PAGE_PIECES },
        );
        expect(pieces).toBeGreaterThan(5);
        const byChunks = join(dir, 'chunks.duckdb');
        await exportTarget(
          { query: (sql, params) => sink.query(sql, params), scan: (sql, visit) => sink.scan!(sql, visit) },
          { kind: 'duckdb', path: byChunks },
        );
        // The pieces' files are gone.
        expect(readdirSync(dir).sort()).toEqual(['chunks.duckdb', 'csv.duckdb']);
        const everyColumn = 'SELECT * FROM authentications ORDER BY service_id';
        const csvRows = await duckdbRows(byCsv, everyColumn);
        expect(csvRows).toHaveLength(2002);
        expect(csvRows).toEqual(await duckdbRows(byChunks, everyColumn));
        // And as stored, which the comparison above would not tell if both paths were wrong alike.
        const [a, b] = await duckdbRows(
          byCsv,
          'SELECT brand_display, material_display, result_display, username, result_final, retake_required, ' +
            'created_at, created_epoch, update_counter, CAST(raw AS VARCHAR) AS raw FROM authentications ' +
            "WHERE service_id IN ('a', 'b') ORDER BY service_id",
        );
        expect(a).toEqual({
          brand_display: 'line\nbreak, "quoted", a \\ backslash',
          material_display: '',
          result_display: null,
          username: 'ü日本🎉',
          result_final: true,
          retake_required: false,
          created_at: '2026-01-02T03:04:05.000001Z',
          created_epoch: 0.30000000000000004,
          update_counter: 9007199254740991,
          raw: '{"b": 1,  "a": "x\\u0000y", "b": "line\\nbreak"}',
        });
        expect(b).toMatchObject({ brand_display: null, material_display: null, created_epoch: 1e-300 });
        expect(b!.update_counter).toBe(-5);
      });
    },
  );

  it.skipIf(!postgresUp)('reads every piece of a table as of one instant', async () => {
    await withPostgresTarget(async (_target, schema, sink) => {
      const brands = 3000;
      await asAdmin(
        `INSERT INTO "${schema}".catalog_brands (account, brand_id, name, raw, last_synced_at) ` +
          `SELECT 'default', 'b' || lpad(i::text, 6, '0'), 'Brand ' || i, '{}', now() ` +
          `FROM generate_series(1, ${brands}) AS i`,
      );
      let pieces = 0;
      // After the first piece another client adds rows (past every page counted), deletes rows of the last pages
      // and updates one in the middle.
      const source = watchedSource(sink, {
        afterEnd: async (table) => {
          if (table !== 'catalog_brands' || ++pieces !== 1) return;
          await asAdmin(
            `INSERT INTO "${schema}".catalog_brands (account, brand_id, name, raw, last_synced_at) ` +
              `SELECT 'default', 'c' || i, 'Late ' || i, '{}', now() FROM generate_series(1, 500) AS i; ` +
              `DELETE FROM "${schema}".catalog_brands WHERE brand_id > 'b002900' AND brand_id < 'c'; ` +
              `UPDATE "${schema}".catalog_brands SET name = 'Renamed' WHERE brand_id = 'b001500'`,
          );
        },
      });
      const path = join(tempDir(), 'snapshot.duckdb');
      const report = await exportTarget(source, { kind: 'duckdb', path }, { csvPieceBytes: PAGE_PIECES });
      expect(pieces).toBeGreaterThan(3);
      expect(report.relations.find((r) => r.name === 'catalog_brands')!.rows).toBe(brands);
      const [row] = await duckdbRows(
        path,
        'SELECT count(*) AS n, count(DISTINCT brand_id) AS ids, max(brand_id) AS last, ' +
          "count(*) FILTER (name = 'Renamed') AS renamed FROM catalog_brands",
      );
      expect(row).toEqual({ n: brands, ids: brands, last: 'b003000', renamed: 0 });
      // In the order the rows lie.
      const ids = (await duckdbRows(path, 'SELECT brand_id FROM catalog_brands')).map((r) => r.brand_id);
      expect([ids[0], ids.at(-1)]).toEqual(['b000001', 'b003000']);
    });
  });

  it.skipIf(!postgresUp)('takes a table with a row longer than DuckDB reads as CSV by the chunked path', async () => {
    await withPostgresTarget(async (_target, schema, sink) => {
      const long = CSV_MAX_LINE_BYTES + 1000;
      await asAdmin(
        `INSERT INTO "${schema}".catalog_brands (account, brand_id, name, raw, last_synced_at) ` +
          `SELECT 'default', 'b' || i, CASE WHEN i = 2 THEN repeat('x', ${long}) ELSE 'Brand ' || i END, '{}', now() ` +
          'FROM generate_series(1, 3) AS i',
      );
      const path = join(tempDir(), 'long.duckdb');
      const report = await exportTarget(sink, { kind: 'duckdb', path });
      expect(report.relations.find((r) => r.name === 'catalog_brands')!.rows).toBe(3);
      const rows = await duckdbRows(path, 'SELECT brand_id, length(name) AS n FROM catalog_brands ORDER BY brand_id');
      expect(rows).toEqual([
        { brand_id: 'b1', n: 7 },
        { brand_id: 'b2', n: long },
        { brand_id: 'b3', n: 7 },
      ]);
    });
  });

  it.skipIf(!postgresUp)(
    'stopped between pieces: ends interrupted, leaves no file and holds the table no more',
    async () => {
      await withPostgresTarget(async (_target, schema, sink) => {
        await asAdmin(
          `INSERT INTO "${schema}".catalog_brands (account, brand_id, name, raw, last_synced_at) ` +
            `SELECT 'default', 'b' || i, 'Brand ' || i, '{}', now() FROM generate_series(1, 3000) AS i`,
        );
        const stop = new AbortController();
        let pieces = 0;
        const source = watchedSource(sink, {
          afterEnd: (table) => {
            if (table === 'catalog_brands' && ++pieces === 2) stop.abort();
          },
        });
        const dir = tempDir();
        const exported = exportTarget(
          source,
          { kind: 'parquet', dir: join(dir, 'parquet') },
          { signal: stop.signal, csvPieceBytes: PAGE_PIECES },
        );
        await expect(exported).rejects.toThrow(InterruptedError);
        expect(pieces).toBe(2);
        expect(readdirSync(join(dir, 'parquet'))).toEqual([]);
        const [held] = await sink.query(
          `SELECT count(*) AS n FROM pg_locks WHERE relation = '"${schema}".catalog_brands'::regclass ` +
            'AND pid <> pg_backend_pid()',
        );
        expect(Number(held!.n)).toBe(0);
      });
    },
  );

  it.skipIf(!postgresUp)(
    'stopped in the middle of a piece: reads the piece to its end, leaves no file and no file open',
    async () => {
      await withPostgresTarget(async (_target, schema, sink) => {
        await asAdmin(
          `INSERT INTO "${schema}".catalog_brands (account, brand_id, name, raw, last_synced_at) ` +
            `SELECT 'default', 'b' || i, repeat('n', 200), '{}', now() FROM generate_series(1, 5000) AS i`,
        );
        const dir = tempDir();
        // The files this process holds open under `dir`.
        const openFiles = () =>
          readdirSync('/proc/self/fd')
            .map((fd) => {
              try {
                return readlinkSync(join('/proc/self/fd', fd));
              } catch {
                return '';
              }
            })
            .filter((path) => path.startsWith(dir));
        const stop = new AbortController();
        let writes = 0;
        // One piece for the whole table: its text comes in many chunks, and the stop comes after the second.
        const source = watchedSource(sink, {
          afterWrite: (table) => {
            if (table === 'catalog_brands' && ++writes === 2) stop.abort();
          },
        });
        const exported = exportTarget(
          source,
          { kind: 'duckdb', path: join(dir, 'stopped.duckdb') },
          { signal: stop.signal },
        );
        await expect(exported).rejects.toThrow(InterruptedError);
        expect(writes).toBe(2);
        expect(readdirSync(dir)).toEqual([]);
        expect(openFiles()).toEqual([]);
        // The connection the piece was read on is as good as new.
        expect(await sink.query(`SELECT count(*)::int AS n FROM "${schema}".catalog_brands`)).toEqual([{ n: 5000 }]);
      });
    },
  );
});
