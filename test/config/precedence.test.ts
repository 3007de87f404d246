import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Config } from '../../src/config/config.js';
import { DEFAULTS } from '../../src/config/defaults.js';
import { loadConfig, type ConfigFlags } from '../../src/config/load-config.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
/** 2026-01-01T00:00:00Z */
const NOW_MS = 1_767_225_600_000;

interface Row {
  option: string;
  /** What each source sets; undefined where the option has no such source. */
  flag?: ConfigFlags;
  env?: Record<string, string>;
  file?: Record<string, unknown>;
  read: (c: Config) => unknown;
  /** The value read with each source winning, and with none. */
  want: { flag?: unknown; env?: unknown; file?: unknown; none: unknown };
}

const ROWS: Row[] = [
  {
    option: 'db',
    flag: { db: 'sqlite:flag.sqlite' },
    env: { IVS_DB: 'sqlite:env.sqlite' },
    file: { db: 'sqlite:file.sqlite' },
    read: (c) => c.db,
    want: { flag: 'sqlite:flag.sqlite', env: 'sqlite:env.sqlite', file: 'sqlite:file.sqlite', none: DEFAULTS.db },
  },
  {
    option: 'baseUrl',
    flag: { baseUrl: 'https://flag.example' },
    env: { IVS_BASE_URL: 'https://env.example' },
    file: { baseUrl: 'https://file.example' },
    read: (c) => c.accounts[0]!.baseUrl,
    want: { flag: 'https://flag.example', env: 'https://env.example', file: 'https://file.example', none: undefined },
  },
  {
    option: 'baseUrl of the one account',
    flag: { baseUrl: 'https://flag.example' },
    env: { IVS_BASE_URL: 'https://env.example' },
    file: { accounts: [{ name: 'a', baseUrl: 'https://file.example' }] },
    read: (c) => c.accounts[0]!.baseUrl,
    want: { flag: 'https://flag.example', env: 'https://env.example', file: 'https://file.example', none: undefined },
  },
  {
    option: 'apiVersion',
    flag: { apiVersion: '2' },
    env: { IVS_API_VERSION: '1.4' },
    file: { apiVersion: '2' },
    read: (c) => c.accounts[0]!.apiVersion,
    want: { flag: '2', env: '1.4', file: '2', none: '1.4' },
  },
  {
    option: 'apiVersion of the one account',
    flag: { apiVersion: '1.4' },
    env: { IVS_API_VERSION: '1.4' },
    file: { accounts: [{ name: 'a', apiVersion: '2' }] },
    read: (c) => c.accounts[0]!.apiVersion,
    want: { flag: '1.4', env: '1.4', file: '2', none: '1.4' },
  },
  {
    option: 'rate',
    flag: { rate: 3 },
    env: { IVS_RATE: '4' },
    file: { rate: 5 },
    read: (c) => c.accounts[0]!.rate,
    want: { flag: 3, env: 4, file: 5, none: DEFAULTS.rate },
  },
  {
    option: 'rate of the one account',
    flag: { rate: 3 },
    env: { IVS_RATE: '4' },
    file: { accounts: [{ name: 'a', rate: 5 }] },
    read: (c) => c.accounts[0]!.rate,
    want: { flag: 3, env: 4, file: 5, none: DEFAULTS.rate },
  },
  {
    option: 'logLevel',
    flag: { logLevel: 'error' },
    env: { IVS_LOG_LEVEL: 'debug' },
    file: { logLevel: 'warn' },
    read: (c) => c.logLevel,
    want: { flag: 'error', env: 'debug', file: 'warn', none: DEFAULTS.logLevel },
  },
  {
    option: 'logLevel under --verbose',
    flag: { verbose: true },
    env: { IVS_LOG_LEVEL: 'warn' },
    file: { logLevel: 'warn' },
    read: (c) => c.logLevel,
    want: { flag: 'debug', env: 'warn', file: 'warn', none: DEFAULTS.logLevel },
  },
  {
    option: 'crawl.since',
    flag: { since: '2025-03-01' },
    env: { IVS_SINCE: '2025-02-01' },
    file: { crawl: { since: '2025-01-01' } },
    read: (c) => c.crawl.since,
    want: { flag: 1_740_787_200, env: 1_738_368_000, file: 1_735_689_600, none: undefined },
  },
  {
    option: 'crawl.resources',
    flag: { resources: 'fingerprints' },
    env: { IVS_RESOURCES: 'authentications' },
    file: { crawl: { resources: ['fingerprints', 'authentications'] } },
    read: (c) => c.crawl.resources,
    want: {
      flag: ['fingerprints'],
      env: ['authentications'],
      file: ['fingerprints', 'authentications'],
      none: DEFAULTS.crawl.resources,
    },
  },
  {
    option: 'daemon.schedule',
    flag: { schedule: '*/1 * * * *' },
    env: { IVS_SCHEDULE: '*/2 * * * *' },
    file: { daemon: { schedule: '*/3 * * * *' } },
    read: (c) => c.daemon.schedule,
    want: { flag: '*/1 * * * *', env: '*/2 * * * *', file: '*/3 * * * *', none: DEFAULTS.daemon.schedule },
  },
  {
    option: 'daemon.timezone',
    flag: { timezone: 'Asia/Tokyo' },
    env: { IVS_TIMEZONE: 'Europe/Berlin' },
    file: { daemon: { timezone: 'America/New_York' } },
    read: (c) => c.daemon.timezone,
    want: { flag: 'Asia/Tokyo', env: 'Europe/Berlin', file: 'America/New_York', none: DEFAULTS.daemon.timezone },
  },
  {
    option: 'verify.budget',
    flag: { budget: 7 },
    env: { IVS_VERIFY_BUDGET: '8' },
    file: { verify: { budget: 9 } },
    read: (c) => c.verify.budget,
    want: { flag: 7, env: 8, file: 9, none: DEFAULTS.verify.budget },
  },
  {
    option: 'verify.every',
    flag: { verifyEvery: '6h' },
    env: { IVS_VERIFY_EVERY: '0 3 * * *' },
    file: { verify: { every: '2d' } },
    read: (c) => c.verify.every,
    want: {
      flag: { kind: 'every', seconds: 21_600, text: '6h' },
      env: { kind: 'cron', expression: '0 3 * * *' },
      file: { kind: 'every', seconds: 172_800, text: '2d' },
      none: undefined,
    },
  },
  {
    option: 'token (no file member)',
    flag: { token: 'flag-token' },
    env: { IVS_API_TOKEN: 'env-token' },
    read: (c) => c.accounts[0]!.token?.reveal(),
    want: { flag: 'flag-token', env: 'env-token', none: undefined },
  },
  {
    option: 'webhooks.secret (no flag)',
    env: { IVS_WEBHOOK_SECRET: 'env-secret-0123456789' },
    file: { webhooks: { secret: 'file-secret-0123456789' } },
    read: (c) => c.webhooks.defaultSecret?.reveal(),
    want: { env: 'env-secret-0123456789', file: 'file-secret-0123456789', none: undefined },
  },
];

/** Loads with the sources from the given one down: 'flag' sets all three, 'env' env and file, 'file' the file only. */
function load(row: Row, from: 'flag' | 'env' | 'file' | 'none'): unknown {
  const dir = tempDir();
  const path = join(dir, 'ivsync.yaml');
  const order = ['flag', 'env', 'file'] as const;
  const active = from === 'none' ? [] : order.slice(order.indexOf(from));
  writeFileSync(path, active.includes('file') && row.file ? stringify(row.file) : '# empty\n');
  const config = loadConfig({
    flags: { config: path, ...(active.includes('flag') ? row.flag : {}) },
    env: active.includes('env') ? { ...row.env } : {},
    clock: () => NOW_MS,
  });
  return row.read(config);
}

describe('precedence: flag > env > config file > default', () => {
  describe.each(ROWS)('$option', (row) => {
    // Only the sources the option has: a token has no file member, a webhook secret no flag.
    const sources = (['flag', 'env', 'file'] as const).filter((s) => s in row.want);
    it.each([...sources, 'none' as const])('%s wins over the sources below it', (source) => {
      expect(load(row, source)).toEqual(row.want[source]);
    });
  });
});

describe('several accounts', () => {
  it('a member set on an account wins over the global flag, env and file value; the others take those', () => {
    const dir = tempDir();
    const path = join(dir, 'ivsync.yaml');
    writeFileSync(
      path,
      stringify({
        rate: 5,
        baseUrl: 'https://file.example',
        accounts: [
          { name: 'eu', rate: 7 },
          { name: 'us', baseUrl: 'https://us.example' },
        ],
      }),
    );
    const c = loadConfig({
      flags: { config: path, rate: 3 },
      env: { IVS_BASE_URL: 'https://env.example' },
      clock: () => NOW_MS,
    });
    expect(c.accounts.map((a) => [a.name, a.rate, a.baseUrl])).toEqual([
      ['eu', 7, 'https://env.example'],
      ['us', 3, 'https://us.example'],
    ]);
  });
});

describe('the env file beside the config file (ivsync.env): below the environment, above the config file', () => {
  /** Writes the config file and the env file with `envFile`, and loads with `flags` and the real `env`. */
  function loadWith(
    row: Row,
    sources: { flag?: boolean; envFile: Record<string, string>; env?: Record<string, string> },
  ): unknown {
    const dir = tempDir();
    const path = join(dir, 'ivsync.yaml');
    writeFileSync(path, row.file ? stringify(row.file) : '# empty\n');
    writeFileSync(
      join(dir, 'ivsync.env'),
      `# written by a test\n${Object.entries(sources.envFile)
        .map(([k, v]) => `${k}="${v}"`)
        .join('\n')}\n`,
    );
    return row.read(
      loadConfig({
        flags: { config: path, ...(sources.flag ? row.flag : {}) },
        env: { ...sources.env },
        clock: () => NOW_MS,
      }),
    );
  }

  describe.each(ROWS.filter((r) => r.env !== undefined))('$option', (row) => {
    it('the env file wins over the config file', () => {
      expect(loadWith(row, { envFile: row.env! })).toEqual(row.want.env);
    });
    it.runIf(row.flag !== undefined)('a flag wins over the env file', () => {
      expect(loadWith(row, { flag: true, envFile: row.env! })).toEqual(row.want.flag);
    });
  });

  it('a real variable wins over the env file, and an empty one does not hide it', () => {
    const row = ROWS.find((r) => r.option === 'db')!;
    expect(loadWith(row, { envFile: { IVS_DB: 'sqlite:envfile.sqlite' }, env: { IVS_DB: 'sqlite:real.sqlite' } })).toBe(
      'sqlite:real.sqlite',
    );
    expect(loadWith(row, { envFile: { IVS_DB: 'sqlite:envfile.sqlite' }, env: { IVS_DB: '' } })).toBe(
      'sqlite:envfile.sqlite',
    );
  });

  it('a bad value in the env file is reported with the file it came from', () => {
    const row = ROWS.find((r) => r.option === 'rate')!;
    expect(() => loadWith(row, { envFile: { IVS_RATE: 'fast' } })).toThrow(
      /^IVS_RATE in .*ivsync\.env: must be a positive number/,
    );
  });
});
