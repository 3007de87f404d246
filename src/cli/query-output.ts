import { stringify } from 'csv-stringify/sync';
import type { QueryResult } from '../store/query/read-only-query.js';
import { renderTable } from './text-table.js';

export const QUERY_FORMATS = ['table', 'csv', 'json'] as const;
export type QueryFormat = (typeof QUERY_FORMATS)[number];

/** One value as JSON holds it: times as ISO 8601, bytes as hex, big integers as numbers where exact. */
export function jsonValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString('hex')}`;
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : String(value);
  return value;
}

/** One value as text: JSON for objects and lists; `nullText` for NULL (spelled out in a table, unlike a text '-'). */
export function textValue(value: unknown, nullText: string): string {
  const plain = jsonValue(value);
  if (plain === null || plain === undefined) return nullText;
  return typeof plain === 'object' ? JSON.stringify(plain) : String(plain);
}

/**
 * What `ivsync query` prints: an aligned table with a row count for people,
 * RFC 4180 CSV with a header line, or one JSON array of objects keyed by
 * column for scripts.
 */
export function renderQueryResult(result: QueryResult, format: QueryFormat): string {
  switch (format) {
    case 'json': {
      const objects = result.rows.map((row) =>
        Object.fromEntries(result.columns.map((c, i) => [c, jsonValue(row[i])])),
      );
      return `${JSON.stringify(objects)}\n`;
    }
    case 'csv':
      return stringify(
        result.rows.map((row) => row.map((v) => textValue(v, ''))),
        { header: true, columns: result.columns },
      );
    case 'table': {
      const count = `(${result.rows.length} ${result.rows.length === 1 ? 'row' : 'rows'})\n`;
      if (result.columns.length === 0) return count;
      return `${renderTable(
        result.columns,
        result.rows.map((row) => row.map((v) => textValue(v, 'NULL'))),
      )}${count}`;
    }
  }
}
