import { describe, expect, it } from 'vitest';
import { parseTime } from '../../src/config/parse-time.js';
import { InputError } from '../../src/errors.js';

/** 2026-01-01T00:00:00Z */
const NOW = 1_767_225_600;
const FROM = { kind: 'flag', name: '--from' } as const;

describe('parseTime', () => {
  it.each([
    ['1700000000', 1700000000],
    ['1700000000.25', 1700000000.25],
    [1700000000, 1700000000],
    ['2024-01-31', 1706659200],
    ['2024-01-31T12:00:00Z', 1706702400],
    ['2024-01-31T12:00:00', 1706702400],
    ['2024-01-31 12:00:00', 1706702400],
    ['2024-01-31T13:00:00+01:00', 1706702400],
    ['2024-02-29', 1709164800],
    ['2000-01-01', 946684800],
    ['2026-01-01T23:59:59Z', NOW + 86_399],
  ])('%s', (text, epoch) => {
    expect(parseTime(text, FROM, NOW)).toBe(epoch);
  });

  it.each([
    [
      'yesterday',
      '"yesterday" is not a time: give an ISO 8601 date or date-time (2024-01-31, 2024-01-31T12:00:00Z) or ' +
        'epoch seconds',
    ],
    ['2025-02-29', '"2025-02-29" is not a time'],
    ['2024-13-01', '"2024-13-01" is not a time'],
    [
      '1767225600000',
      '1767225600000 looks like epoch milliseconds (2026-01-01T00:00:00Z); give epoch seconds: 1767225600',
    ],
    [
      '1767225600000000',
      '1767225600000000 looks like epoch microseconds (2026-01-01T00:00:00Z); give epoch seconds: 1767225600',
    ],
    [
      '1767225600000000000',
      '1767225600000000000 looks like epoch nanoseconds (2026-01-01T00:00:00Z); give epoch seconds: 1767225600',
    ],
    ['99999999999999999999', '99999999999999999999 has 20 digits, but epoch seconds have 10 (until the year 2286)'],
    ['17672256000', '17672256000 is 2530-01-05T00:00:00Z, more than a day after now (2026-01-01T00:00:00Z)'],
    ['9999-12-31', '9999-12-31 is more than a day after now (2026-01-01T00:00:00Z)'],
    ['2026-01-02T00:00:01Z', '2026-01-02T00:00:01Z is more than a day after now (2026-01-01T00:00:00Z)'],
    ['1999-12-31', '1999-12-31 is 1999-12-31T00:00:00Z, before 2000-01-01, older than any session'],
    [
      '176722560',
      '176722560 is 1975-08-08T09:36:00Z, before 2000-01-01, older than any session; epoch seconds of this ' +
        'century have 10 digits, this has 9',
    ],
    [
      '0',
      '0 is 1970-01-01T00:00:00Z, before 2000-01-01, older than any session; epoch seconds of this century ' +
        'have 10 digits, this has 1',
    ],
    // Text that may be a secret pasted into the wrong place is described, never quoted.
    ['ivs_live_8f3KQ2mZr7TxW1pB', 'the value (a string of 25 characters) is not a time'],
  ])('refuses %s, naming the likely mistake', (text, problem) => {
    let thrown: unknown;
    try {
      parseTime(text, FROM, NOW);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InputError);
    expect(thrown).toMatchObject({ code: 'BAD_TIME', source: FROM, value: text.startsWith('ivs_') ? undefined : text });
    expect((thrown as InputError).problem.startsWith(problem)).toBe(true);
    expect((thrown as Error).message).toBe(`--from: ${(thrown as InputError).problem}`);
  });

  it('words the source of a time from the file or the environment', () => {
    expect(() => parseTime('soon', { kind: 'env', name: 'IVS_SINCE' }, NOW)).toThrow(
      /^IVS_SINCE: "soon" is not a time/,
    );
    expect(() => parseTime('soon', { kind: 'config', key: 'crawl.since', file: 'config/ivsync.yaml' }, NOW)).toThrow(
      /^config file config\/ivsync\.yaml: crawl\.since: "soon" is not a time/,
    );
  });
});
