import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { announcePostgres, POSTGRES_URL, postgresUp } from '../helpers/postgres.js';
import { runIvsync, spawnIvsync } from '../helpers/run-cli.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';

/*
 * status, export and verify only read: pointed at a target that is not there
 * they fail with one line naming it, and leave nothing behind (a typo in --db
 * must not read as an empty, healthy copy).
 */
announcePostgres('read-only target tests');

const COMMANDS: Array<[string, (dir: string) => string[]]> = [
  ['status', () => ['status']],
  ['export', (dir) => ['export', '--to', `parquet:${join(dir, 'out')}`]],
  ['verify', () => ['verify', '--budget', '10']],
];

function env(dir: string, db: string): Record<string, string> {
  return {
    IVS_DB: db,
    IVS_CONFIG: writeConfig(dir),
    IVS_BASE_URL: 'http://127.0.0.1:9',
    IVS_API_TOKEN: 'test-token',
    IVS_LOG_LEVEL: 'silent',
  };
}

function expectOneLineNaming(stderr: string, target: string): void {
  const lines = stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(target);
  expect(lines[0]).toMatch(/does not exist|holds no ivsync tables/);
}

describe('a read-only command on a missing target', () => {
  const tempDir = useTempDir();

  for (const [name, args] of COMMANDS) {
    for (const kind of ['sqlite', 'duckdb'] as const) {
      it(
        `${name} --db ${kind}:/missing/dir/x fails with one ` + `line and creates neither the directory nor the file`,
        async () => {
          const dir = tempDir();
          const path = join(dir, 'wrong', 'dir', `x.${kind}`);
          const result = await runIvsync(args(dir), env(dir, `${kind}:${path}`));
          expect(result.code).toBe(1);
          expectOneLineNaming(result.stderr, `${kind}:${path}`);
          expect(existsSync(join(dir, 'wrong'))).toBe(false);
          expect(readdirSync(dir)).toEqual(['ivsync.json']);
        },
      );
    }
  }

  it('export in a folder without data/ (the default target) fails and creates no data/', async () => {
    const dir = tempDir();
    const { IVS_DB: _default, ...rest } = env(dir, '');
    const child = spawnIvsync(['export', '--to', 'duckdb:copy.duckdb'], rest, dir);
    const result = await child.exited;
    expect(result.code).toBe(1);
    expectOneLineNaming(result.stderr, 'sqlite:./data/ivsync.sqlite');
    expect(readdirSync(dir)).toEqual(['ivsync.json']);
  });

  it.skipIf(!postgresUp)(
    'postgres: a schema that exists but was never migrated is reported the same way and left empty',
    async () => {
      const schema = `ro_empty_${process.pid}_${Date.now()}`;
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      try {
        await client.query(`CREATE SCHEMA "${schema}"`);
        const url = new URL(POSTGRES_URL!);
        url.searchParams.set('schema', schema);
        const dir = tempDir();
        const result = await runIvsync(['status'], env(dir, url.toString()));
        expect(result.code).toBe(1);
        expectOneLineNaming(result.stderr, `schema=${schema}`);
        const tables = await client.query('SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [
          schema,
        ]);
        expect(tables.rows).toEqual([]);
      } finally {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      }
    },
  );

  it.skipIf(!postgresUp)(
    'postgres: a missing schema is reported the same way, without the password, and not created',
    async () => {
      const schema = `ro_missing_${process.pid}_${Date.now()}`;
      const url = new URL(POSTGRES_URL!);
      // A trust-authenticated server ignores it; it must still never be printed.
      url.password = 'hunter2secret';
      url.searchParams.set('schema', schema);
      const dir = tempDir();
      for (const [, args] of COMMANDS) {
        const result = await runIvsync(args(dir), env(dir, url.toString()));
        expect(result.code).toBe(1);
        expectOneLineNaming(result.stderr, `schema=${schema}`);
        expect(result.stderr).not.toContain('hunter2secret');
      }
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      try {
        const found = await client.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [schema]);
        expect(found.rowCount).toBe(0);
      } finally {
        await client.end();
      }
    },
  );
});
