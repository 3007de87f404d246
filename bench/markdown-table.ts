import Table from 'cli-table3';
import { PLAIN_TABLE_CHARS } from '../src/cli/text-table.js';

// Pipes round every cell and one dashed line under the header only (compact): a Markdown table docs/benchmarks.md takes
// as printed.
const MARKDOWN = {
  ...PLAIN_TABLE_CHARS,
  left: '|',
  'left-mid': '|',
  mid: '-',
  'mid-mid': '|',
  right: '|',
  'right-mid': '|',
  middle: '|',
};

/** A benchmark's figures as an aligned Markdown table. */
export function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly unknown[]>): string {
  const table = new Table({ head: [...header], chars: MARKDOWN, style: { head: [], border: [], compact: true } });
  for (const row of rows) table.push(row.map(String));
  return table.toString();
}
