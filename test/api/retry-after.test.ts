import { describe, expect, it } from 'vitest';
import { retryAfterMs } from '../../src/api/retry-after.js';

const NOW = Date.parse('2026-11-26T09:00:00Z');

describe('the wait a Retry-After asks for', () => {
  const cases: Array<[string, string | undefined, number | undefined]> = [
    ['no header', undefined, undefined],
    ['empty', '', undefined],
    ['whole seconds', '2', 2000],
    ['a fraction of a second, as the service sends', '0.4', 400],
    ['zero', '0', 0],
    ['spaces around', ' 3 ', 3000],
    ['an IMF date ahead', 'Thu, 26 Nov 2026 09:00:05 GMT', 5000],
    ['an asctime date (UTC without saying so)', 'Thu Nov 26 09:00:07 2026', 7000],
    ['a date already past', 'Thu, 26 Nov 2026 08:59:00 GMT', 0],
    ['a negative number', '-1', undefined],
    ['a number with a unit', '5s', undefined],
    ['words', 'soon', undefined],
  ];
  it.each(cases)('%s', (_name, header, expected) => {
    expect(retryAfterMs(header, NOW)).toBe(expected);
  });
});
