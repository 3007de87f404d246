import { describe, expect, it } from 'vitest';
import { jsonValue, renderQueryResult, textValue } from '../../src/cli/query-output.js';

describe('query values', () => {
  it.each([
    [null, null, 'NULL'],
    [42, 42, '42'],
    [2n ** 60n, '1152921504606846976', '1152921504606846976'],
    [7n, 7, '7'],
    [new Date('2026-01-02T03:04:05.678Z'), '2026-01-02T03:04:05.678Z', '2026-01-02T03:04:05.678Z'],
    [Buffer.from([0xca, 0xfe]), '\\xcafe', '\\xcafe'],
    [{ a: [1, 'x'] }, { a: [1, 'x'] }, '{"a":[1,"x"]}'],
  ])('row %#: JSON and text', (value, json, text) => {
    expect(jsonValue(value)).toEqual(json);
    expect(textValue(value, 'NULL')).toBe(text);
  });
});

describe('renderQueryResult', () => {
  const result = {
    columns: ['id', 'note'],
    rows: [
      ['a', 'one, "quoted"\nline'],
      ['b', null],
    ],
  };
  it('CSV quotes what needs it and leaves NULL empty', () => {
    expect(renderQueryResult(result, 'csv')).toBe('id,note\na,"one, ""quoted""\nline"\nb,\n');
  });
  it('JSON is one array of objects by column', () => {
    expect(JSON.parse(renderQueryResult(result, 'json'))).toEqual([
      { id: 'a', note: 'one, "quoted"\nline' },
      { id: 'b', note: null },
    ]);
  });
  it('a table ends with its row count, and an empty result says so', () => {
    expect(renderQueryResult({ columns: ['n'], rows: [[1]] }, 'table')).toBe('n\n1\n(1 row)\n');
    expect(renderQueryResult({ columns: ['n'], rows: [] }, 'table')).toBe('n\n(0 rows)\n');
  });
});
