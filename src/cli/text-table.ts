import Table from 'cli-table3';

// No borders and no colour: columns two spaces apart, one line per row, so the output greps and cuts like plain text.
const PLAIN = {
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

/** Rows under a header line as aligned plain text; a missing value (null, undefined) shows as '-'. */
export function renderTable(header: readonly string[], rows: ReadonlyArray<readonly unknown[]>): string {
  const table = new Table({ head: [...header], chars: PLAIN, style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 } });
  for (const row of rows) table.push(header.map((_, i) => (row[i] === null || row[i] === undefined ? '-' : String(row[i]))));
  // cli-table3 pads the last column too; trailing blanks would only get in the way of grep and diff.
  return `${table.toString().split('\n').map((line) => line.trimEnd()).join('\n')}\n`;
}
