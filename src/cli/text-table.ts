import Table from 'cli-table3';

/**
 * cli-table3 characters for no frame at all: columns two spaces apart, one line per row, so the output greps and cuts
 * like plain text.
 */
export const PLAIN_TABLE_CHARS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
};

/** Rows under a header line as aligned plain text, without colour; a missing value (null, undefined) shows as '-'. */
export function renderTable(header: readonly string[], rows: ReadonlyArray<readonly unknown[]>): string {
  const table = new Table({
    head: [...header],
    chars: PLAIN_TABLE_CHARS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  for (const row of rows)
    table.push(header.map((_, i) => (row[i] === null || row[i] === undefined ? '-' : String(row[i]))));
  // cli-table3 pads the last column too; trailing blanks would only get in the way of grep and diff.
  return `${table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')}\n`;
}
