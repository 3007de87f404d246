import { describe, expect, it } from 'vitest';
import { loadConfig, type ConfigFlags } from '../../src/config/load-config.js';

const clock = () => 1_767_225_600_000;

function schedules(
  file: object,
  flags: ConfigFlags = {},
  env: Record<string, string> = {},
): Array<[string, string, string]> {
  const c = loadConfig({ flags, env, readFile: () => JSON.stringify(file), fileExists: () => true, clock });
  return c.accounts.map((a) => [a.name, a.schedule.expression, a.schedule.timezone]);
}

describe('accounts[].schedule and timezone', () => {
  it.each<[string, object, ConfigFlags, Record<string, string>, Array<[string, string, string]>]>([
    [
      'none: every account follows the default',
      { accounts: [{ name: 'a' }, { name: 'b' }] },
      {},
      {},
      [
        ['a', '*/5 * * * *', 'UTC'],
        ['b', '*/5 * * * *', 'UTC'],
      ],
    ],
    [
      'none: every account follows daemon.schedule',
      { daemon: { schedule: '*/10 * * * *', timezone: 'Asia/Tokyo' }, accounts: [{ name: 'a' }] },
      {},
      {},
      [['a', '*/10 * * * *', 'Asia/Tokyo']],
    ],
    [
      "its own schedule; its time zone falls back to the daemon's",
      { daemon: { timezone: 'Europe/Paris' }, accounts: [{ name: 'a', schedule: '0 * * * *' }, { name: 'b' }] },
      {},
      {},
      [
        ['a', '0 * * * *', 'Europe/Paris'],
        ['b', '*/5 * * * *', 'Europe/Paris'],
      ],
    ],
    [
      'its own time zone only',
      { accounts: [{ name: 'a', timezone: 'America/New_York' }, { name: 'b' }] },
      {},
      {},
      [
        ['a', '*/5 * * * *', 'America/New_York'],
        ['b', '*/5 * * * *', 'UTC'],
      ],
    ],
    [
      "several accounts: --schedule is the daemon's, an account's own wins",
      { accounts: [{ name: 'a', schedule: '0 3 * * *' }, { name: 'b' }] },
      { schedule: '* * * * *' },
      {},
      [
        ['a', '0 3 * * *', 'UTC'],
        ['b', '* * * * *', 'UTC'],
      ],
    ],
    [
      'one account: --schedule wins over its member, as --rate does',
      { accounts: [{ name: 'a', schedule: '0 3 * * *' }] },
      { schedule: '* * * * *' },
      {},
      [['a', '* * * * *', 'UTC']],
    ],
    [
      'one account: IVS_TIMEZONE wins over its member',
      { accounts: [{ name: 'a', timezone: 'Asia/Tokyo' }] },
      {},
      { IVS_TIMEZONE: 'Europe/Paris' },
      [['a', '*/5 * * * *', 'Europe/Paris']],
    ],
    [
      'one account: daemon.schedule of the file does not win over its member',
      { daemon: { schedule: '* * * * *' }, accounts: [{ name: 'a', schedule: '0 3 * * *' }] },
      {},
      {},
      [['a', '0 3 * * *', 'UTC']],
    ],
  ])('%s', (_name, file, flags, env, expected) => {
    expect(schedules(file, flags, env)).toEqual(expected);
  });

  it('a bad schedule or time zone names the account member', () => {
    expect(() => schedules({ accounts: [{ name: 'a' }, { name: 'b', schedule: 'every minute' }] })).toThrow(
      /accounts\.1\.schedule/,
    );
    expect(() => schedules({ accounts: [{ name: 'a', timezone: 'Mars/Olympus' }] })).toThrow(/accounts\.0\.timezone/);
  });
});
