import { describe, expect, it } from 'vitest';
import { leadingKeyword, READING_KEYWORDS } from '../../src/store/query/leading-keyword.js';

describe('leadingKeyword', () => {
  it.each([
    ['SELECT 1', 'SELECT', true],
    ['  select 1', 'SELECT', true],
    ['-- a note\nWITH x AS (SELECT 1) SELECT * FROM x', 'WITH', true],
    ['/* why */ (SELECT 1) UNION (SELECT 2)', 'SELECT', true],
    ['/* one */ -- two\n  explain SELECT 1', 'EXPLAIN', true],
    ["COPY authentications TO '/tmp/x.csv'", 'COPY', false],
    ['(COPY x TO STDOUT)', 'COPY', false],
    ['-- SELECT\nDELETE FROM authentications', 'DELETE', false],
    ['/* SELECT */ DROP TABLE x', 'DROP', false],
    ['/* never closed SELECT', '', false],
    ['', '', false],
  ])('%j starts with %s', (sql, keyword, reads) => {
    expect(leadingKeyword(sql)).toBe(keyword);
    expect(READING_KEYWORDS.has(leadingKeyword(sql))).toBe(reads);
  });
});
