import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONFIG_DOC_COMMAND, renderConfigDoc } from '../../src/config/config-doc.js';
import type { Config } from '../../src/config/config.js';
import type { MemberPath } from '../../src/config/defaults.js';
import { loadConfig, type ConfigFlags } from '../../src/config/load-config.js';
import { MEMBER_DOCS } from '../../src/config/member-docs.js';

const DOC = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));
const clock = () => 1_767_225_600_000;

/**
 * For each member the docs say a flag or variable sets: a value to give, and
 * where the loaded config shows it. A member given a flag or variable in
 * member-docs.ts without a row here fails the test below.
 */
const SET_BY: Partial<Record<MemberPath, { value: string; read: (c: Config) => unknown; expected?: unknown }>> = {
  baseUrl: { value: 'http://127.0.0.1:9999', read: (c) => c.accounts[0]?.baseUrl },
  apiVersion: { value: '2', read: (c) => c.accounts[0]?.apiVersion },
  db: { value: 'duckdb:elsewhere.duckdb', read: (c) => c.db },
  rate: { value: '3', read: (c) => c.accounts[0]?.rate, expected: 3 },
  logLevel: { value: 'warn', read: (c) => c.logLevel },
  'crawl.since': { value: '1767225600', read: (c) => c.crawl.since, expected: 1_767_225_600 },
  'crawl.resources': { value: 'fingerprints', read: (c) => c.crawl.resources, expected: ['fingerprints'] },
  'webhooks.secret': {
    value: 'a-webhook-secret-of-32-characters',
    read: (c) => c.webhooks.defaultSecret !== undefined,
    expected: true,
  },
  'daemon.schedule': { value: '*/7 * * * *', read: (c) => c.daemon.schedule },
  'daemon.timezone': { value: 'Asia/Tokyo', read: (c) => c.daemon.timezone },
  'refresh.budgetShare': { value: '0.25', read: (c) => c.refresh.budgetShare, expected: 0.25 },
  'refresh.maxRequestsPerRun': { value: '42', read: (c) => c.refresh.maxRequestsPerRun, expected: 42 },
  'verify.budget': { value: '7', read: (c) => c.verify.budget, expected: 7 },
  'verify.every': { value: '6h', read: (c) => c.verify.every !== undefined, expected: true },
  'alerts.url': {
    value: 'https://hooks.example.com/services/T0/B0/secret',
    read: (c) => c.alerts.urls.map((u) => u.reveal()),
    expected: ['https://hooks.example.com/services/T0/B0/secret'],
  },
};

const documented = (Object.entries(MEMBER_DOCS) as Array<[MemberPath, (typeof MEMBER_DOCS)[MemberPath]]>).filter(
  ([, doc]) => doc.flag !== undefined || doc.env !== undefined,
);

function camel(flag: string): keyof ConfigFlags {
  return flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()) as keyof ConfigFlags;
}

function flagValue(key: keyof ConfigFlags, value: string): string | number {
  // The parser gives numbers for the numeric flags, as yargs does.
  return key === 'rate' || key === 'budget' || key === 'refreshBudget' ? Number(value) : value;
}

describe('docs/configuration.md', () => {
  it('is the rendered configuration reference', () => {
    const onDisk = readFileSync(DOC, 'utf8');
    const stale = `docs/configuration.md is out of date with src/config; regenerate it with: ${CONFIG_DOC_COMMAND}`;
    expect(onDisk === renderConfigDoc(), stale).toBe(true);
  });

  it('lists every member of the config file and every documented flag and variable', () => {
    const doc = renderConfigDoc();
    for (const [path, member] of Object.entries(MEMBER_DOCS)) {
      expect(doc).toContain(`| \`${path}\` |`);
      if (member.flag !== undefined) expect(doc).toContain(`\`${member.flag}\``);
      if (member.env !== undefined) expect(doc).toContain(`\`${member.env}\``);
    }
  });
});

describe('the flags and variables the reference names', () => {
  it('has a row in this test for each documented member', () => {
    expect(documented.map(([path]) => path).sort()).toEqual(Object.keys(SET_BY).sort());
  });

  it.each(documented.filter(([, doc]) => doc.env !== undefined))('%s: its variable sets it', (path, doc) => {
    const row = SET_BY[path]!;
    const loaded = loadConfig({ flags: {}, env: { [doc.env!]: row.value }, clock, fileExists: () => false });
    expect(row.read(loaded)).toEqual(row.expected ?? row.value);
  });

  it.each(documented.filter(([, doc]) => doc.flag !== undefined))(
    '%s: its flag sets it, over the variable',
    (path, doc) => {
      const row = SET_BY[path]!;
      const key = camel(doc.flag!);
      const env = doc.env === undefined ? {} : { [doc.env]: row.value };
      const unset = loadConfig({ flags: {}, env: {}, clock, fileExists: () => false });
      expect(row.read(unset)).not.toEqual(row.expected ?? row.value);
      const flags = { [key]: flagValue(key, row.value) } as ConfigFlags;
      const loaded = loadConfig({
        flags,
        env: { ...env, ...(doc.env ? { [doc.env]: 'overridden' } : {}) },
        clock,
        fileExists: () => false,
      });
      expect(row.read(loaded)).toEqual(row.expected ?? row.value);
    },
  );
});
