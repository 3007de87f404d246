import { ROW_GROUP_ROWS } from './duckdb-open.js';

/** Most ranges a rowid filter names: each is a comparison of every row the scan reads. */
const MAX_RANGES = 32;

/**
 * The condition that picks the rows of `rowids` (digits, validated): their
 * list, and the ranges they fall in, which DuckDB pushes into the scan so
 * that it reads only the row groups inside them. A list alone is a join
 * whose filter on the scan is its lowest and highest rowid, a whole table
 * apart when the rows sit in two places. The ranges are split at the widest
 * gaps wider than a row group, MAX_RANGES at most.
 */
export function rowidCondition(rowids: readonly string[]): string {
  const sorted = rowids.map(BigInt).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const gaps = sorted
    .slice(1)
    .map((rowid, i) => ({ at: i + 1, width: rowid - sorted[i]! }))
    .filter((gap) => gap.width > BigInt(ROW_GROUP_ROWS))
    .sort((a, b) => (a.width > b.width ? -1 : a.width < b.width ? 1 : 0))
    .slice(0, MAX_RANGES - 1)
    .map((gap) => gap.at)
    .sort((a, b) => a - b);
  const starts = [0, ...gaps];
  const ranges = starts.map(
    (start, i) => `rowid BETWEEN ${sorted[start]!} AND ${sorted[(starts[i + 1] ?? sorted.length) - 1]!}`,
  );
  return `(${ranges.join(' OR ')}) AND rowid = ANY([${rowids.join(', ')}])`;
}
