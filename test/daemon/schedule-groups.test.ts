import { describe, expect, it } from 'vitest';
import { scheduleGroups } from '../../src/daemon/schedule-groups.js';

const DAEMON = { expression: '*/5 * * * *', timezone: 'UTC' };

describe('accounts grouped by schedule', () => {
  it.each<
    [string, string[], Array<[string, { expression: string; timezone: string }]>, Array<[string, string, string[]]>]
  >([
    ["none of their own: one group, the daemon's", ['a', 'b'], [], [['*/5 * * * *', 'UTC', ['a', 'b']]]],
    [
      'one of their own: two groups',
      ['a', 'b', 'c'],
      [['b', { expression: '0 * * * *', timezone: 'UTC' }]],
      [
        ['*/5 * * * *', 'UTC', ['a', 'c']],
        ['0 * * * *', 'UTC', ['b']],
      ],
    ],
    [
      "the daemon's own, spelt out: one group",
      ['a', 'b'],
      [
        ['a', DAEMON],
        ['b', DAEMON],
      ],
      [['*/5 * * * *', 'UTC', ['a', 'b']]],
    ],
    [
      'same expression, another time zone: apart',
      ['a', 'b'],
      [['b', { expression: '*/5 * * * *', timezone: 'Asia/Tokyo' }]],
      [
        ['*/5 * * * *', 'UTC', ['a']],
        ['*/5 * * * *', 'Asia/Tokyo', ['b']],
      ],
    ],
    [
      'shared by two accounts: one group, in account order',
      ['a', 'b', 'c'],
      [
        ['c', { expression: '0 3 * * *', timezone: 'UTC' }],
        ['a', { expression: '0 3 * * *', timezone: 'UTC' }],
      ],
      [
        ['0 3 * * *', 'UTC', ['a', 'c']],
        ['*/5 * * * *', 'UTC', ['b']],
      ],
    ],
    [
      'every account its own: no daemon group',
      ['a'],
      [['a', { expression: '0 3 * * *', timezone: 'UTC' }]],
      [['0 3 * * *', 'UTC', ['a']]],
    ],
  ])('%s', (_name, accounts, own, expected) => {
    expect(scheduleGroups(accounts, DAEMON, new Map(own)).map((g) => [g.expression, g.timezone, g.accounts])).toEqual(
      expected,
    );
  });
});
