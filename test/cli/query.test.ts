import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { announcePostgres, POSTGRES_URL, postgresUp } from '../helpers/postgres.js';
import { errorMessage, runIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';
import { readTarget } from '../targets/read-target.js';

/*
 * `ivsync query` reads any target or export without a SQL client, and nothing
 * it is given can write: each target is filled by a real backfill, queried
 * through the CLI's parser, and its rows counted again after every refused write.
 */
announcePostgres('query tests on Postgres');

const tempDir = useTempDir();
const simulator = useSimulators({ sessions: 30, rate: 2000, burst: 2000, seed: 11 });
const SCHEMA = 'query_cli_test';

async function filled(db: string): Promise<{ env: Record<string, string>; sessions: number; dir: string }> {
  const sim = await simulator();
  const dir = tempDir();
  const env = {
    IVS_BASE_URL: sim.url,
    IVS_API_TOKEN: 'test-token',
    IVS_CONFIG: writeConfig(dir),
    IVS_RATE: '2000',
    IVS_DB: db,
    IVS_LOG_LEVEL: 'silent',
  };
  expect((await runIvsync(['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)], env)).code).toBe(
    0,
  );
  return { env, sessions: sim.world.count(undefined, 'authentications'), dir };
}

const count = async (db: string): Promise<number> =>
  Number((await readTarget(db, 'SELECT count(*) AS n FROM authentications'))[0]!.n);

const TARGETS: Array<[string, (dir: string) => string]> = [
  ['sqlite', (dir) => `sqlite:${join(dir, 'ivsync.sqlite')}`],
  ['duckdb', (dir) => `duckdb:${join(dir, 'ivsync.duckdb')}`],
];

async function resetSchema(): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await client.end();
}

/** Writes each dialect must refuse; the last ones try to slip past a read-only transaction or write a file. */
function writes(dir: string): string[] {
  return [
    'DELETE FROM authentications',
    "UPDATE authentications SET flag = 'x'",
    'DROP TABLE authentications',
    'COMMIT; DELETE FROM authentications',
    `COPY authentications TO '${join(dir, 'leak.csv')}'`,
  ];
}

describe.each([
  ...TARGETS,
  ...(postgresUp ? [['postgres', () => `${POSTGRES_URL}?schema=${SCHEMA}`] as [string, (dir: string) => string]] : []),
])('ivsync query on %s', (kind, dbFor) => {
  it('reads the rows the backfill wrote, in each format', async () => {
    if (kind === 'postgres') await resetSchema();
    const db = dbFor(tempDir());
    const { env, sessions } = await filled(db);
    const sql = 'SELECT count(*) AS n, min(service_id) AS first FROM authentications';
    const json = await runIvsync(['query', sql, '--format', 'json'], env);
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const [row] = JSON.parse(json.stdout) as Array<{ n: number; first: string }>;
    expect(row!.n).toBe(sessions);
    const [first] = await readTarget(db, 'SELECT min(service_id) AS first FROM authentications');
    expect(row!.first).toBe(first!.first);

    const csv = await runIvsync(
      ['query', 'SELECT service_id, result_final FROM authentications ORDER BY service_id', '--format', 'csv'],
      env,
    );
    expect(csv.code).toBe(0);
    const lines = csv.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('service_id,result_final');
    expect(lines).toHaveLength(sessions + 1);

    const table = await runIvsync(['query', 'SELECT service_id FROM authentications ORDER BY service_id LIMIT 2'], env);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]!.trim()).toBe('service_id');
    expect(table.stdout).toMatch(/\(2 rows\)\n$/);
  });

  it('refuses every write, and the rows stay', async () => {
    if (kind === 'postgres') await resetSchema();
    const dir = tempDir();
    const db = dbFor(dir);
    const { env, sessions } = await filled(db);
    for (const sql of writes(dir)) {
      const r = await runIvsync(['query', sql], env);
      expect(r.code, sql).toBe(1);
      expect(errorMessage(r.stderr), sql).not.toBe('');
    }
    expect(await count(db)).toBe(sessions);
    expect(existsSync(join(dir, 'leak.csv'))).toBe(false);
  });
});

describe("ivsync query on the analyst's export files", () => {
  it('reads a DuckDB export and a Parquet export, and refuses to write either', async () => {
    const dir = tempDir();
    const { env, sessions } = await filled(`sqlite:${join(dir, 'ivsync.sqlite')}`);
    const duck = join(dir, 'analyst.duckdb');
    const parquet = join(dir, 'parquet');
    expect((await runIvsync(['export', '--to', `duckdb:${duck}`], env)).code).toBe(0);
    expect((await runIvsync(['export', '--to', `parquet:${parquet}`], env)).code).toBe(0);
    for (const db of [`duckdb:${duck}`, `parquet:${parquet}`]) {
      const r = await runIvsync(['query', '--db', db, '--json', 'SELECT count(*) AS n FROM authentications'], env);
      expect(r.code, db).toBe(0);
      expect(JSON.parse(r.stdout), db).toEqual([{ n: sessions }]);
      // A view of the export reads too.
      expect((await runIvsync(['query', '--db', db, 'SELECT * FROM v_daily_results LIMIT 1'], env)).code, db).toBe(0);
      for (const sql of writes(dir))
        expect((await runIvsync(['query', '--db', db, sql], env)).code, `${db}: ${sql}`).toBe(1);
      const again = await runIvsync(['query', '--db', db, '--json', 'SELECT count(*) AS n FROM authentications'], env);
      expect(JSON.parse(again.stdout), db).toEqual([{ n: sessions }]);
    }
    expect(existsSync(join(dir, 'leak.csv'))).toBe(false);
  });

  it('a file that is not there is an error in one line, and is not created', async () => {
    const dir = tempDir();
    for (const db of [
      `sqlite:${join(dir, 'nope.sqlite')}`,
      `duckdb:${join(dir, 'nope.duckdb')}`,
      `parquet:${join(dir, 'nope')}`,
    ]) {
      const r = await runIvsync(['query', '--db', db, 'SELECT 1'], { IVS_CONFIG: writeConfig(dir) });
      expect(r.code, db).toBe(1);
      expect(r.stderr.trimEnd().split('\n'), db).toHaveLength(1);
      expect(existsSync(db.replace(/^\w+:/, '')), db).toBe(false);
    }
  });
});
