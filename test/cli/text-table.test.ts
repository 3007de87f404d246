import { describe, expect, it } from 'vitest';
import { renderTable } from '../../src/cli/text-table.js';

describe('renderTable', () => {
  it.each([
    ['a header alone', ['table', 'rows'], [], 'table  rows\n'],
    [
      'columns two spaces apart, no trailing blanks',
      ['table', 'rows'],
      [
        ['authentications', 120],
        ['fingerprints', 3],
      ],
      'table            rows\nauthentications  120\nfingerprints     3\n',
    ],
    [
      "a missing value as '-', an empty one as nothing",
      ['run', 'status', 'error'],
      [
        ['r1', null, ''],
        ['r2', 'failed', undefined],
      ],
      'run  status  error\nr1   -\nr2   failed  -\n',
    ],
    ['a short row padded to the header', ['a', 'b', 'c'], [['x']], 'a  b  c\nx  -  -\n'],
    // Wide characters take two columns in a terminal; the next column still lines up.
    [
      'wide characters by their width on screen',
      ['owner', 'domain'],
      [
        ['日本', 'a.example'],
        ['acme', 'b.example'],
      ],
      'owner  domain\n日本   a.example\nacme   b.example\n',
    ],
  ])('%s', (_name, header, rows, text) => {
    expect(renderTable(header, rows)).toBe(text);
  });
});
