import { describe, expect, it } from 'vitest';
import { parseExportTarget } from '../../src/store/export-target.js';
import { exportValue } from '../../src/store/export-value.js';
import { keysetPage } from '../../src/store/keyset-page.js';
import { table, type ColumnType } from '../../src/store/schema.js';
import type { Dialect } from '../../src/store/dialect.js';

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
  it.each<[ColumnType, Dialect, unknown, ReturnType<typeof exportValue>]>([
    ['boolean', 'sqlite', 1, { kind: 'boolean', value: true }],
    ['boolean', 'sqlite', 0, { kind: 'boolean', value: false }],
    ['boolean', 'postgres', true, { kind: 'boolean', value: true }],
    ['boolean', 'duckdb', null, { kind: 'null' }],
    ['json', 'sqlite', '{"a":1}', { kind: 'varchar', value: '{"a":1}' }],
    ['json', 'postgres', { a: [1, 'x'] }, { kind: 'varchar', value: '{"a":[1,"x"]}' }],
    // jsonb holding a JSON string comes back from pg as a JS string: it must stay a JSON string.
    ['json', 'postgres', 'plain', { kind: 'varchar', value: '"plain"' }],
    ['integer', 'sqlite', 42, { kind: 'bigint', value: 42n }],
    ['integer', 'duckdb', 42n, { kind: 'bigint', value: 42n }],
    ['integer', 'postgres', '7', { kind: 'bigint', value: 7n }],
    ['real', 'postgres', 1.5, { kind: 'double', value: 1.5 }],
    ['real', 'sqlite', 1790000000.123456, { kind: 'double', value: 1790000000.123456 }],
    ['text', 'sqlite', 'abc', { kind: 'varchar', value: 'abc' }],
    ['text', 'sqlite', undefined, { kind: 'null' }],
  ])('%s from %s: %s', (type, dialect, value, expected) => {
    expect(exportValue(column(type), 't', dialect, value)).toEqual(expected);
  });

  it.each<[ColumnType, Dialect, unknown]>([
    ['boolean', 'sqlite', 2],
    ['boolean', 'sqlite', 'yes'],
    ['integer', 'sqlite', 1.5],
    ['real', 'sqlite', 'abc'],
    ['json', 'sqlite', { a: 1 }],
  ])('refuses %s from %s: %j, naming the column', (type, dialect, value) => {
    expect(() => exportValue(column(type), 't', dialect, value)).toThrow(/^t\.c: cannot export/);
  });
});

describe('keysetPage', () => {
  it('starts at the first key and continues after the last one read', () => {
    const def = table('authentications');
    expect(keysetPage(def, null, 10).sql).toMatch(/ FROM authentications ORDER BY service_id LIMIT 10$/);
    expect(keysetPage(def, ['B7'], 10)).toEqual({ sql: expect.stringMatching(/ WHERE service_id > \? ORDER BY service_id LIMIT 10$/), params: ['B7'] });
  });

  it('compares composite keys as row values', () => {
    const page = keysetPage(table('sync_windows'), ['default', 'fingerprints', '2', 1_700_000_000], 5);
    expect(page.sql).toMatch(/WHERE \(account, resource, api_version, window_start\) > \(\?, \?, \?, \?\) ORDER BY account, resource, api_version, window_start LIMIT 5$/);
    expect(page.params).toEqual(['default', 'fingerprints', '2', 1_700_000_000]);
  });

  it('refuses a key of the wrong width', () => {
    expect(() => keysetPage(table('session_text_fields'), ['only-one'], 5)).toThrow(/key of 2 columns/);
  });
});
