import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { exportTarget, type ExportSource } from '../../src/store/export/export.js';
import { openSink } from '../../src/store/open-sink.js';
import { POSTGRES_URL } from '../helpers/postgres.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { freshTarget, postgresUp } from '../targets/each-target.js';
import { duckdbRows } from './relation-rows.js';

const tempDir = useTempDir();

/** More brands than one chunk of a scan (EACH_CHUNK, 2,048): the table is read in several. */
const BRANDS = 5_000;

describe('an export from a Postgres target', () => {
  it.skipIf(!postgresUp)(
    'reads each table in the order its rows lie, in one snapshot over all its chunks',
    async () => {
      const target = await freshTarget('postgres');
      const schema = new URL(target.url).searchParams.get('schema')!;
      const writer = new pg.Client({ connectionString: POSTGRES_URL });
      await writer.connect();
      const sink = await openSink(target.url);
      try {
        // Each insert's rows lie in descending key order.
        const insert = (from: number, to: number) =>
          writer.query(
            `INSERT INTO "${schema}".catalog_brands (account, brand_id, name, raw, last_synced_at) ` +
              `SELECT 'default', 'b' || lpad(i::text, 6, '0'), 'Brand ' || i, '{}', now() ` +
              `FROM generate_series($2::int, $1::int, -1) AS i`,
            [from, to],
          );
        await insert(1, BRANDS);
        let chunks = 0;
        let written: Promise<unknown> = Promise.resolve();
        const afterChunk = (sql: string) => {
          if (sql.includes('catalog_brands') && chunks++ === 0) written = insert(BRANDS + 1, BRANDS + 3000);
        };
        // The source as the CLI hands it over, with a write by another client sent after the first chunk: keys past
        // every stored one's, which reads in key order a chunk at a time would take in their last chunks.
        const source: ExportSource = {
          query: async (sql, params) => {
            const rows = await sink.query(sql, params);
            afterChunk(sql);
            await written;
            return rows;
          },
          ...(sink.scan
            ? {
                scan: async (sql: string, visit: (rows: Record<string, unknown>[]) => void) => {
                  await sink.scan!(sql, (rows) => {
                    afterChunk(sql);
                    visit(rows);
                  });
                  await written;
                },
              }
            : {}),
        };
        const path = join(tempDir(), 'snapshot.duckdb');
        const report = await exportTarget(source, { kind: 'duckdb', path });
        expect(chunks).toBeGreaterThan(1);
        expect(report.relations.find((r) => r.name === 'catalog_brands')!.rows).toBe(BRANDS);
        const brandId = (i: number) => `b${String(i).padStart(6, '0')}`;
        const [row] = await duckdbRows(
          path,
          'SELECT count(*) AS n, count(DISTINCT brand_id) AS ids, max(brand_id) AS last FROM catalog_brands',
        );
        expect(row).toEqual({ n: BRANDS, ids: BRANDS, last: brandId(BRANDS) });
        // Appended in the order they were read (DuckDB keeps it): the table's, not the key's.
        const ids = (await duckdbRows(path, 'SELECT brand_id FROM catalog_brands')).map((r) => r.brand_id);
        expect([ids[0], ids[1], ids.at(-1)]).toEqual([brandId(BRANDS), brandId(BRANDS - 1), brandId(1)]);
      } finally {
        await sink.close();
        await writer.end();
        await target.dispose();
      }
    },
  );

  it.skipIf(!postgresUp)(
    'stopped by its signal in the middle of a table, ends interrupted, writes nothing and holds the table no more',
    async () => {
      const target = await freshTarget('postgres');
      const schema = new URL(target.url).searchParams.get('schema')!;
      const sink = await openSink(target.url);
      try {
        await sink.query('SELECT 1');
        const admin = new pg.Client({ connectionString: POSTGRES_URL });
        await admin.connect();
        try {
          await admin.query(
            `INSERT INTO "${schema}".catalog_brands (account, brand_id, name, raw, last_synced_at) ` +
              `SELECT 'default', 'b' || i, 'Brand ' || i, '{}', now() FROM generate_series(1, ${BRANDS}) AS i`,
          );
        } finally {
          await admin.end();
        }
        const stop = new AbortController();
        let chunks = 0;
        const source: ExportSource = {
          query: (sql, params) => sink.query(sql, params),
          scan: (sql, visit) =>
            sink.scan!(sql, (rows) => {
              visit(rows);
              if (sql.includes('catalog_brands') && ++chunks === 1) stop.abort();
            }),
        };
        const dir = tempDir();
        const exported = exportTarget(
          source,
          { kind: 'duckdb', path: join(dir, 'stopped.duckdb') },
          {
            signal: stop.signal,
          },
        );
        await expect(exported).rejects.toThrow(InterruptedError);
        expect(chunks).toBe(1);
        expect(readdirSync(dir)).toEqual([]);
        // The cursor's transaction ended with the stop: no other connection holds the table it read.
        const [held] = await sink.query(
          `SELECT count(*) AS n FROM pg_locks WHERE relation = '"${schema}".catalog_brands'::regclass ` +
            'AND pid <> pg_backend_pid()',
        );
        expect(Number(held!.n)).toBe(0);
      } finally {
        await sink.close();
        await target.dispose();
      }
    },
  );
});
