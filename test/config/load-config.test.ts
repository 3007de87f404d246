import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';

/** 2026-01-01: the loader refuses times more than a day after its clock. */
const NOW_MS = 1_767_225_600_000;
const clock = () => NOW_MS;
const noFile = { fileExists: () => false, clock };

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({ flags: {}, env: {}, ...noFile });
    expect(c.db).toBe('sqlite:./data/ivsync.sqlite');
    expect(c.accounts).toHaveLength(1);
    expect(c.accounts[0]).toMatchObject({ name: 'default', apiVersion: '1.4', rate: 10, tokenEnv: 'IVS_API_TOKEN' });
    expect(c.crawl).toMatchObject({ windowSeconds: 604800, overlapSeconds: 86400, concurrency: 64 });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('takes flag over env over file', () => {
    const file = JSON.stringify({ db: 'sqlite:file.sqlite', rate: 3, baseUrl: 'https://file.example' });
    const sources = { readFile: () => file, fileExists: () => true, clock };
    expect(loadConfig({ flags: {}, env: {}, ...sources }).db).toBe('sqlite:file.sqlite');
    expect(loadConfig({ flags: {}, env: { IVS_DB: 'duckdb:env.duckdb' }, ...sources }).db).toBe('duckdb:env.duckdb');
    expect(
      loadConfig({ flags: { db: 'sqlite:flag.sqlite' }, env: { IVS_DB: 'duckdb:env.duckdb' }, ...sources }).db,
    ).toBe('sqlite:flag.sqlite');
    expect(loadConfig({ flags: {}, env: { IVS_RATE: '5' }, ...sources }).accounts[0]!.rate).toBe(5);
    expect(loadConfig({ flags: {}, env: {}, ...sources }).accounts[0]!.baseUrl).toBe('https://file.example');
  });

  it('keeps the token a secret', () => {
    const c = loadConfig({ flags: {}, env: { IVS_API_TOKEN: 'tok-123456' }, ...noFile });
    expect(c.accounts[0]!.token!.reveal()).toBe('tok-123456');
    expect(JSON.stringify(c)).not.toContain('tok-123456');
    expect(inspect(c, { depth: 10 })).not.toContain('tok-123456');
  });

  it('reads several accounts, each with its token variable', () => {
    const file = JSON.stringify({
      baseUrl: 'https://x.example',
      accounts: [{ name: 'eu' }, { name: 'us', tokenEnv: 'US_TOKEN', apiVersion: '2', rate: 4 }],
    });
    const c = loadConfig({
      flags: {},
      env: { IVS_API_TOKEN: 'a', US_TOKEN: 'b' },
      readFile: () => file,
      fileExists: () => true,
      clock,
    });
    expect(c.accounts.map((a) => [a.name, a.apiVersion, a.rate, a.token?.reveal()])).toEqual([
      ['eu', '1.4', 10, 'a'],
      ['us', '2', 4, 'b'],
    ]);
  });

  it.each([
    ['{"crawl": {"windowSeconds": 5}}', /crawl.windowSeconds/],
    ['{"nope": 1}', /nope: unknown member/],
    ['{not json', /not valid JSON/],
    ['{"accounts": [{"name": "a"}, {"name": "a"}]}', /listed twice/],
  ])('rejects a bad file %s with a clear message', (text, message) => {
    expect(() => loadConfig({ flags: { config: 'x.json' }, env: {}, readFile: () => text, clock })).toThrow(message);
  });

  it('rejects a bad api version and rate', () => {
    expect(() => loadConfig({ flags: { apiVersion: '3' }, env: {}, ...noFile })).toThrow(/1.4 or 2/);
    expect(() => loadConfig({ flags: {}, env: { IVS_RATE: 'fast' }, ...noFile })).toThrow(/IVS_RATE/);
  });
});
