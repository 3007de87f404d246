import { describe, expect, it } from 'vitest';
import { parseExportTarget } from '../../src/store/export/export-target.js';
import { exportValue } from '../../src/store/export/export-value.js';
import { keysetPage } from '../../src/store/export/keyset-page.js';
import { table, type ColumnType } from '../../src/schema/schema.js';

describe('parseExportTarget', () => {
  it.each([
    ['duckdb:out/a.duckdb', { kind: 'duckdb', path: 'out/a.duckdb' }],
    ['parquet:/tmp/pq', { kind: 'parquet', dir: '/tmp/pq' }],
  ])('reads %s', (to, expected) => {
    expect(parseExportTarget(to)).toEqual(expected);
  });

  it.each([
    ['duckdb:', /has no path: expected duckdb:PATH/],
    ['parquet:', /has no path: expected parquet:DIR/],
    ['sqlite:x.sqlite', /unknown export target 'sqlite:x.sqlite'/],
    ['out.duckdb', /expected duckdb:PATH or parquet:DIR/],
  ])('refuses %s', (to, message) => {
    expect(() => parseExportTarget(to)).toThrow(message);
  });
});

describe('exportValue', () => {
  const column = (type: ColumnType) => ({ name: 'c', type, description: '' });
  // Values as the drivers hand them out (sql-driver.ts), from whichever source.
  it.each<[ColumnType, unknown, ReturnType<typeof exportValue>]>([
    ['boolean', 1, { kind: 'boolean', value: true }],
    ['boolean', 0, { kind: 'boolean', value: false }],
    ['boolean', true, { kind: 'boolean', value: true }],
    ['boolean', null, { kind: 'null' }],
    ['json', '{"b":1, "a":2}', { kind: 'varchar', value: '{"b":1, "a":2}' }],
    // A JSON document that is a string is its text, quotes included (PostgreSQL's json comes as text too).
    ['json', '"plain"', { kind: 'varchar', value: '"plain"' }],
    ['integer', 42, { kind: 'bigint', value: 42n }],
    ['integer', 42n, { kind: 'bigint', value: 42n }],
    ['integer', '7', { kind: 'bigint', value: 7n }],
    ['real', 1.5, { kind: 'double', value: 1.5 }],
    ['real', 1790000000.123456, { kind: 'double', value: 1790000000.123456 }],
    ['text', 'abc', { kind: 'varchar', value: 'abc' }],
    ['text', undefined, { kind: 'null' }],
    ['timestamp', '2026-01-02T03:04:05.123456Z', { kind: 'timestamptz', value: '2026-01-02T03:04:05.123456Z' }],
    // Always with its zone: DuckDB would take a time without one for local time.
    ['timestamp', '2026-01-02 03:04:05.1', { kind: 'timestamptz', value: '2026-01-02T03:04:05.100000Z' }],
    ['timestamp', '2026-01-02T12:04:05+09:00', { kind: 'timestamptz', value: '2026-01-02T03:04:05.000000Z' }],
    ['timestamp', null, { kind: 'null' }],
  ])('%s: %s', (type, value, expected) => {
    expect(exportValue(column(type), 't', value)).toEqual(expected);
  });

  it.each<[ColumnType, unknown]>([
    ['boolean', 2],
    ['boolean', 'yes'],
    ['integer', 1.5],
    ['real', 'abc'],
    ['json', { a: 1 }],
    ['timestamp', 'yesterday'],
    ['timestamp', 1767323045],
  ])('refuses %s: %j, naming the column', (type, value) => {
    expect(() => exportValue(column(type), 't', value)).toThrow(/^t\.c: cannot export/);
  });
});

describe('keysetPage', () => {
  it('starts at the first key and continues after the last one read', () => {
    const def = table('authentications');
    expect(keysetPage(def, null, 10).sql).toMatch(/ FROM authentications ORDER BY service_id LIMIT 10$/);
    expect(keysetPage(def, ['B7'], 10)).toEqual({
      sql: expect.stringMatching(/ WHERE service_id > \? ORDER BY service_id LIMIT 10$/),
      params: ['B7'],
    });
  });

  it('compares composite keys as row values', () => {
    const page = keysetPage(table('sync_windows'), ['default', 'fingerprints', '2', 1_700_000_000], 5);
    expect(page.sql).toMatch(
      new RegExp(
        /WHERE \(account, resource, api_version, window_start\) > \(\?, \?, \?, \?\) ORDER BY account, /.source +
          /resource, api_version, window_start LIMIT 5$/.source,
      ),
    );
    expect(page.params).toEqual(['default', 'fingerprints', '2', 1_700_000_000]);
  });

  it('refuses a key of the wrong width', () => {
    expect(() => keysetPage(table('session_text_fields'), ['only-one'], 5)).toThrow(/key of 2 columns/);
  });
});
