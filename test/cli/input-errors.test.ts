import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorMessage, runIvsync } from '../helpers/run-cli.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
/** The injected clock: 2026-01-01T00:00:00Z. */
const NOW_MS = 1_767_225_600_000;
const clock = () => NOW_MS;

/** A target path that is never created, a service nobody listens on: a usage error must reach neither. */
function setup(config: Record<string, unknown> = {}, extraEnv: Record<string, string> = {}) {
  const dir = tempDir();
  const db = join(dir, 'ivsync.sqlite');
  const env = {
    IVS_BASE_URL: 'http://127.0.0.1:9',
    IVS_API_TOKEN: 'x',
    IVS_DB: `sqlite:${db}`,
    IVS_CONFIG: writeConfig(dir, config),
    ...extraEnv,
  };
  return { dir, db, env };
}

const year = ['--from', '2025-01-01', '--to', '2025-12-31'];

describe('usage mistakes found after parsing exit 2 with one line naming their source, and run nothing', () => {
  it.each([
    [
      'an unreadable time',
      ['backfill', '--from', 'yesterday', '--to', '2025-01-01'],
      {},
      {},
      /^--from: "yesterday" is not a time/,
    ],
    ['a date that does not exist', ['sync', '--since', '2025-02-30'], {}, {}, /^--since: "2025-02-30" is not a time/],
    [
      '--to before --from',
      ['backfill', '--from', '2025-02-01', '--to', '2025-01-01'],
      {},
      {},
      /^--to: 2025-01-01 is before --from 2025-02-01$/,
    ],
    [
      'an unknown resource',
      ['backfill', ...year, '--resources', 'authentications,photos'],
      {},
      {},
      /^--resources: unknown resource "photos" \(expected authentications or fingerprints\)$/,
    ],
    [
      'an unknown resource in the environment',
      ['backfill', ...year],
      {},
      { IVS_RESOURCES: 'photos' },
      /^IVS_RESOURCES: unknown resource "photos"/,
    ],
    [
      'an unknown account',
      ['backfill', ...year, '--account', 'nope'],
      {},
      {},
      /^--account: no account 'nope' in the configuration \(known: default\)$/,
    ],
    [
      'a bad --schedule',
      ['daemon', '--schedule', '* * *'],
      {},
      {},
      /^--schedule: '\* \* \*' is not a cron expression \(expression: expected 5 or 6 fields but got 3\)$/,
    ],
    [
      'a bad IVS_SCHEDULE',
      ['daemon'],
      {},
      { IVS_SCHEDULE: '61 * * * *' },
      /^IVS_SCHEDULE: '61 \* \* \* \*' is not a cron expression \(minute: /,
    ],
    [
      'a bad daemon.schedule in the file, reported as that',
      ['daemon'],
      { daemon: { schedule: '*/5 * *' } },
      {},
      /^config file \S+ivsync\.json: daemon\.schedule: '\*\/5 \* \*' is not a cron expression/,
    ],
    [
      'a bad --timezone',
      ['daemon', '--timezone', 'Mars/Olympus'],
      {},
      {},
      /^--timezone: 'Mars\/Olympus' is not an IANA time zone/,
    ],
    [
      'a bad IVS_RATE',
      ['backfill', ...year],
      {},
      { IVS_RATE: 'fast' },
      /^IVS_RATE: must be a positive number of requests per second, got "fast"$/,
    ],
    [
      'a bad --log-level',
      ['backfill', ...year, '--log-level', 'loud'],
      {},
      {},
      /^--log-level: must be one of trace, debug, info, warn, error, fatal, silent, got "loud"$/,
    ],
    [
      'a bad member of the file',
      ['backfill', ...year],
      { crawl: { windowSeconds: 5 } },
      {},
      /^config file \S+: crawl\.windowSeconds: expected a number at least 60, got 5$/,
    ],
    [
      'a --lease-ttl of 0',
      ['backfill', ...year, '--lease-ttl', '0'],
      {},
      {},
      /^--lease-ttl: must be at least 1 second, got 0$/,
    ],
    [
      '--backfill-to without --backfill-from',
      ['daemon', '--backfill-to', '2025-01-01'],
      {},
      {},
      /^--backfill-to: needs --backfill-from$/,
    ],
  ])('%s', async (_name, args, config, extraEnv, message) => {
    const { db, env } = setup(config, extraEnv);
    const r = await runIvsync(args, env, undefined, clock);
    expect(errorMessage(r.stderr)).toMatch(message);
    expect(r.stderr.split('\n')).toHaveLength(2); // one line and its newline
    expect(r.code).toBe(2);
    expect(existsSync(db)).toBe(false);
  });

  it('--json makes the error one JSON line on stderr, with its source and value', async () => {
    const { env } = setup();
    const r = await runIvsync(
      ['backfill', '--from', 'yesterday', '--to', '2025-01-01', '--json'],
      env,
      undefined,
      clock,
    );
    expect(r.code).toBe(2);
    expect(r.stderr.endsWith('\n') && r.stderr.split('\n')).toHaveLength(2);
    expect(JSON.parse(r.stderr)).toEqual({
      level: 'error',
      time: '2026-01-01T00:00:00.000Z',
      msg:
        '--from: "yesterday" is not a time: give an ISO 8601 date or date-time (2024-01-31, ' +
        '2024-01-31T12:00:00Z) or epoch seconds',
      error: {
        code: 'BAD_TIME',
        message:
          '--from: "yesterday" is not a time: give an ISO 8601 date or date-time (2024-01-31, ' +
          '2024-01-31T12:00:00Z) or epoch seconds',
        source: { kind: 'flag', name: '--from' },
        value: 'yesterday',
      },
    });
  });

  it.each([
    ['a mistake the parser finds', ['sync', '--unknown-flag', '--json'], {}, 2, 'USAGE'],
    ['a failure', ['health', '--json'], { IVS_BASE_URL: '' }, 1, 'NO_BASE_URL'],
  ])('--json also for %s', async (_name, args, extraEnv, exit, code) => {
    const { env } = setup();
    const r = await runIvsync(args, { ...env, ...extraEnv }, undefined, clock);
    expect(r.code).toBe(exit);
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect((JSON.parse(r.stderr) as { error: { code: string } }).error.code).toBe(code);
  });
});

describe('times a user most likely mistyped are refused before any window is planned', () => {
  it.each([
    [
      'milliseconds',
      '1767225600000',
      /^--to: 1767225600000 looks like epoch milliseconds \(2026-01-01T00:00:00Z\); give epoch seconds: 1767225600$/,
    ],
    [
      'a number too large for any date',
      '99999999999999999999',
      /^--to: 99999999999999999999 has 20 digits, but epoch seconds have 10/,
    ],
    ['the end of time', '9999-12-31', /^--to: 9999-12-31 is more than a day after now \(2026-01-01T00:00:00Z\)$/],
    [
      'a digit missing',
      '176722560',
      new RegExp(
        /^--to: 176722560 is 1975-08-08T09:36:00Z, before 2000-01-01, older than any session; epoch /.source +
          /seconds of this century have 10 digits, this has 9$/.source,
      ),
    ],
  ])('%s: exit 2, one line, no window and no run written', async (_name, to, message) => {
    const { db, env } = setup();
    expect((await runIvsync(['migrate'], env, undefined, clock)).code).toBe(0);
    const r = await runIvsync(['backfill', '--from', '2025-01-01', '--to', to], env, undefined, clock);
    expect(errorMessage(r.stderr)).toMatch(message);
    expect(r.code).toBe(2);
    expect(
      query(db, 'SELECT (SELECT count(*) FROM sync_windows) AS windows, (SELECT count(*) FROM sync_runs) AS runs'),
    ).toEqual([{ windows: 0, runs: 0 }]);
  });

  it('"now" is the injected clock: a time a day and a half after it is refused', async () => {
    const { env } = setup();
    const r = await runIvsync(['sync', '--since', '2026-01-02T12:00:00Z'], env, undefined, clock);
    expect(r.code).toBe(2);
    expect(errorMessage(r.stderr)).toMatch(
      /^--since: 2026-01-02T12:00:00Z is more than a day after now \(2026-01-01T00:00:00Z\)$/,
    );
  });
});

describe('a plan of more windows than crawl.maxWindows', () => {
  it('is refused before the target is opened, with advice', async () => {
    const { db, env } = setup({ crawl: { windowSeconds: 60 } });
    const r = await runIvsync(['backfill', ...year], env, undefined, clock);
    expect(r.code).toBe(2);
    expect(errorMessage(r.stderr)).toMatch(
      new RegExp(
        /^2025-01-01T00:00:00Z to 2025-12-31T00:00:00Z is 524,161 windows of 60 s, more than /.source +
          /crawl\.maxWindows \(100,000\): set a larger crawl\.windowSeconds/.source,
      ),
    );
    expect(existsSync(db)).toBe(false);
  });

  it('is refused for a sync too, before any window is written', async () => {
    const { db, env } = setup({ crawl: { windowSeconds: 30 * 86_400, maxWindows: 5 } });
    const r = await runIvsync(['sync', '--since', '2025-01-01'], env, undefined, clock);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is 13 windows of 2592000 s, more than crawl\.maxWindows \(5\)/);
    expect(query(db, 'SELECT count(*) AS n FROM sync_windows')).toEqual([{ n: 0 }]);
  });
});
