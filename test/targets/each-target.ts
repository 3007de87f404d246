import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { POSTGRES_URL, postgresProblem, postgresUp, REQUIRE_POSTGRES } from '../helpers/postgres.js';
import { afterEach, beforeEach, describe, it } from 'vitest';
import type { Dialect } from '../../src/schema/dialect.js';

export { postgresUp };
if (!postgresUp && !REQUIRE_POSTGRES) console.warn(`${postgresProblem}: the postgres target tests are skipped`);

/** A fresh target of one dialect: a file in a temp dir, or a PostgreSQL schema of its own. */
export interface FreshTarget {
  readonly dialect: Dialect;
  /** The `--db` value. */
  readonly url: string;
  /** Removes the files or drops the schema. */
  dispose(): Promise<void>;
}

export async function freshTarget(dialect: Dialect): Promise<FreshTarget> {
  if (dialect === 'postgres') {
    const schema = `ivs_test_${randomBytes(6).toString('hex')}`;
    const url = new URL(POSTGRES_URL ?? '');
    url.searchParams.set('schema', schema);
    return {
      dialect,
      url: url.toString(),
      dispose: async () => {
        const client = new pg.Client({ connectionString: POSTGRES_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      },
    };
  }
  const dir = await mkdtemp(join(tmpdir(), 'ivsync-target-'));
  return {
    dialect,
    url: `${dialect}:${join(dir, dialect === 'sqlite' ? 'ivsync.sqlite' : 'ivsync.duckdb')}`,
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * Registers `suite` once per target, each test on a fresh one. Without a
 * reachable Postgres the postgres copy is skipped with a warning, or, under
 * IVS_REQUIRE_POSTGRES=1, replaced by a test that fails.
 */
export function eachTarget(suite: (dialect: Dialect, target: () => FreshTarget) => void): void {
  for (const dialect of ['sqlite', 'duckdb', 'postgres'] as const) {
    if (dialect === 'postgres' && !postgresUp && REQUIRE_POSTGRES) {
      describe(dialect, () => {
        it('has a reachable Postgres (IVS_REQUIRE_POSTGRES=1)', () => {
          throw new Error(`${postgresProblem}, and IVS_REQUIRE_POSTGRES=1 forbids skipping the postgres target`);
        });
      });
      continue;
    }
    describe.skipIf(dialect === 'postgres' && !postgresUp)(dialect, () => {
      let current: FreshTarget | undefined;
      beforeEach(async () => {
        current = await freshTarget(dialect);
      });
      afterEach(async () => {
        await current?.dispose();
        current = undefined;
      });
      suite(dialect, () => {
        if (current === undefined) throw new Error('no target outside a test');
        return current;
      });
    });
  }
}
