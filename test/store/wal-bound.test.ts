import { describe, expect, it } from 'vitest';
import { WAL_FLOOR_BYTES, walOverBound } from '../../src/store/drivers/wal-bound.js';

const MIB = 1024 * 1024;

describe('walOverBound', () => {
  const cases: Array<[string, number, number, boolean]> = [
    ['an empty WAL never', 0, 0, false],
    ['beside a small file, up to the floor is left', WAL_FLOOR_BYTES, 100_000, false],
    ['beside a small file, past the floor is not', WAL_FLOOR_BYTES + 1, 100_000, true],
    ['beside a large file, a quarter of it is left', 25 * MIB, 100 * MIB, false],
    ['beside a large file, past a quarter is not', 25 * MIB + 1, 100 * MIB, true],
    ["SQLite's autocheckpoint size beside a 7 MiB file is far past", 64 * MIB, 7 * MIB, true],
  ];
  it.each(cases)('%s', (_name, wal, file, over) => {
    expect(walOverBound(wal, file)).toBe(over);
  });
});
