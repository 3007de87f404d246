import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { openTarget } from '../../src/index.js';
import { errorMessage, runIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';

/*
 * Files the analyst owns are never written by accident: an export made by
 * `ivsync export` is read as it is by status, query and a read-only
 * openTarget, and refused in one line by everything that writes; a database
 * of the analyst's own gets ivsync's tables only with `migrate --force`.
 */

const tempDir = useTempDir();
const simulator = useSimulators({ sessions: 40, rate: 2000, burst: 2000, seed: 5 });

const digest = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

async function duckdbTables(path: string): Promise<string[]> {
  const instance = await DuckDBInstance.create(path);
  const c = await instance.connect();
  try {
    const reader = await c.runAndReadAll(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY table_name",
    );
    return reader.getRowObjects().map((r) => String(r.table_name));
  } finally {
    c.closeSync();
    instance.closeSync();
  }
}

/** A SQLite target filled by a backfill, and its DuckDB export. */
async function exported(): Promise<{ dir: string; env: Record<string, string>; exportPath: string; sessions: number }> {
  const sim = await simulator();
  const dir = tempDir();
  const env = {
    IVS_BASE_URL: sim.url,
    IVS_API_TOKEN: 'test-token',
    IVS_CONFIG: writeConfig(dir),
    IVS_RATE: '2000',
    IVS_DB: `sqlite:${join(dir, 'ivsync.sqlite')}`,
  };
  expect((await runIvsync(['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)], env)).code).toBe(
    0,
  );
  const exportPath = join(dir, 'analyst.duckdb');
  expect((await runIvsync(['export', '--to', `duckdb:${exportPath}`], env)).code).toBe(0);
  return { dir, env, exportPath, sessions: sim.world.count(undefined, 'authentications') };
}

describe('an export', () => {
  it(
    'openTarget (the README example) refuses it in one line and writes nothing into it; read-only, it reads as ' +
      'it is',
    async () => {
      const { exportPath, sessions } = await exported();
      const before = digest(exportPath);
      const error = await openTarget(`duckdb:${exportPath}`).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'TARGET_IS_EXPORT' });
      expect((error as Error).message).toMatch(/^target duckdb:.*analyst\.duckdb is an export made by ivsync export: /);
      expect(digest(exportPath)).toBe(before);
      expect(await duckdbTables(exportPath)).not.toContain('knex_migrations');

      for (const options of [{ readOnly: true }, { existing: true }]) {
        const sink = await openTarget(`duckdb:${exportPath}`, options);
        try {
          expect(await sink.query('SELECT count(*) AS n FROM authentications')).toEqual([{ n: sessions }]);
          const status = await sink.status();
          expect(status.tables).toMatchObject({ authentications: sessions });
          await expect(sink.acquireLease('x', 'me', 60, new Date().toISOString())).rejects.toMatchObject({
            code: 'TARGET_IS_EXPORT',
          });
        } finally {
          await sink.close();
        }
      }
      expect(await duckdbTables(exportPath)).not.toContain('knex_migrations');
      expect(digest(exportPath)).toBe(before);
    },
  );

  it('status reads it; sync, backfill and migrate refuse it in one line, exit 1, and leave it as it was', async () => {
    const { env, exportPath, sessions } = await exported();
    const at = { ...env, IVS_DB: `duckdb:${exportPath}` };
    const before = digest(exportPath);
    const status = await runIvsync(['status', '--json'], at);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).tables).toMatchObject({ authentications: sessions });
    const writers = [
      ['sync', '--since', String(HISTORY_START)],
      ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)],
      ['migrate'],
      ['migrate', '--force'],
      // These open an existing target only, and write into it: refused at their first write.
      ['reset'],
      ['verify', '--budget', '5'],
    ];
    for (const args of writers) {
      const result = await runIvsync(args, at);
      expect(result.code, args.join(' ')).toBe(1);
      // verify logs the start of its run first; the error is one line, without a stack.
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(errorMessage(result.stderr)).toMatch(
        /is an export made by ivsync export: it is read as it is \(status, a read-only openTarget\), never written/,
      );
    }
    expect(await duckdbTables(exportPath)).not.toContain('knex_migrations');
    expect(digest(exportPath)).toBe(before);
  });

  it('an export made before the marker table is recognised by its tables', async () => {
    const { exportPath } = await exported();
    const instance = await DuckDBInstance.create(exportPath);
    const c = await instance.connect();
    await c.run('DROP TABLE ivsync_export');
    c.closeSync();
    instance.closeSync();
    await expect(openTarget(`duckdb:${exportPath}`)).rejects.toMatchObject({ code: 'TARGET_IS_EXPORT' });
  });
});

describe("a database of the analyst's own", () => {
  it.each(['sqlite', 'duckdb'] as const)(
    '%s: refused without --force, nothing written; migrate --force adds the tables beside its own',
    async (kind) => {
      const dir = tempDir();
      const path = join(dir, `notes.${kind}`);
      if (kind === 'sqlite') {
        const db = new Database(path);
        db.exec("CREATE TABLE my_notes (note TEXT); INSERT INTO my_notes VALUES ('mine')");
        db.close();
      } else {
        const instance = await DuckDBInstance.create(path);
        const c = await instance.connect();
        await c.run("CREATE TABLE my_notes (note VARCHAR); INSERT INTO my_notes VALUES ('mine')");
        c.closeSync();
        instance.closeSync();
      }
      const env = { IVS_DB: `${kind}:${path}`, IVS_CONFIG: writeConfig(dir) };
      const refused = await runIvsync(['migrate'], env);
      expect(refused.code).toBe(1);
      expect(errorMessage(refused.stderr)).toBe(
        `target ${kind}:${path} holds tables that are not ivsync's: nothing was written; check --db, or run ` +
          `ivsync migrate --force to add ivsync's tables beside them`,
      );
      const status = await runIvsync(['status'], env);
      expect(status.code).toBe(1);
      expect(errorMessage(status.stderr)).toMatch(/holds no ivsync tables/);
      const tables = async (): Promise<string[]> => {
        const sink = await openTarget(`${kind}:${path}`, { force: true });
        try {
          const sql =
            kind === 'sqlite'
              ? "SELECT name FROM sqlite_master WHERE type = 'table'"
              : "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'main'";
          return (await sink.query(sql)).map((r) => String(r.name));
        } finally {
          await sink.close();
        }
      };
      const error = await openTarget(`${kind}:${path}`).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'TARGET_NOT_IVSYNC' });
      expect((await runIvsync(['migrate', '--force'], env)).code).toBe(0);
      expect(await tables()).toEqual(expect.arrayContaining(['my_notes', 'knex_migrations', 'authentications']));
      // From now on it is a target: every command opens it.
      expect((await runIvsync(['status'], env)).code).toBe(0);
    },
  );
});
