import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { announcePostgres, POSTGRES_URL, postgresUp } from '../helpers/postgres.js';
import { afterEach, beforeEach, describe } from 'vitest';
import type { Dialect } from '../../src/store/dialect.js';
import { openSink, type OpenSinkOptions } from '../../src/store/open-sink.js';
import type { QueryableSink } from '../../src/store/sql-sink.js';

announcePostgres('postgres store tests');

export interface TargetContext {
  /** The target of the current test (a fresh file or schema per test). */
  readonly target: () => string;
  /** Opens (and migrates) the current test's target; closed after the test. */
  readonly open: (options?: OpenSinkOptions) => Promise<QueryableSink>;
}

/**
 * Runs the same suite against every target, each test on a fresh database:
 * SQLite and DuckDB files in a temp dir, and a PostgreSQL schema of its own
 * (dropped after) when IVS_TEST_POSTGRES_URL answers.
 */
export function forEachTarget(suite: (dialect: Dialect, ctx: TargetContext) => void): void {
  for (const dialect of ['sqlite', 'duckdb', 'postgres'] as const) {
    describe.skipIf(dialect === 'postgres' && !postgresUp)(dialect, () => {
      let dir = '';
      let schema = '';
      let current = '';
      let opened: QueryableSink[] = [];

      beforeEach(async () => {
        opened = [];
        if (dialect === 'postgres') {
          schema = `ivs_test_${randomBytes(6).toString('hex')}`;
          const url = new URL(POSTGRES_URL ?? '');
          url.searchParams.set('schema', schema);
          current = url.toString();
        } else {
          dir = await mkdtemp(join(tmpdir(), 'ivsync-store-'));
          current = `${dialect}:${join(dir, 'sub', dialect === 'sqlite' ? 'ivsync.sqlite' : 'ivsync.duckdb')}`;
        }
      });

      afterEach(async () => {
        for (const sink of opened) await sink.close();
        if (dialect === 'postgres') {
          const client = new pg.Client({ connectionString: POSTGRES_URL });
          await client.connect();
          await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          await client.end();
        } else {
          await rm(dir, { recursive: true, force: true });
        }
      });

      suite(dialect, {
        target: () => current,
        open: async (options) => {
          const sink = await openSink(current, options);
          opened.push(sink);
          return sink;
        },
      });
    });
  }
}
