import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import knexFactory, { type Knex } from 'knex';
import * as initial from '../../migrations/20251122000000_initial.js';
import type { MigrationFile } from '../../migrations/index.js';
import type { SqlTypeOverrides } from '../../src/store/column-sql-type.js';
import { migrateDuckdb } from '../../src/store/duckdb-migrator.js';
import { applyStepsWithKnex, revertStepsWithKnex } from '../../src/store/knex-ddl.js';
import type { MigrationStep } from '../../src/store/migration-step.js';
import { parseTarget } from '../../src/store/parse-target.js';
import { StaticMigrationSource } from '../../src/store/static-migration-source.js';

/** The types 20251122000000_initial created before times were typed: text times, and jsonb in PostgreSQL. */
const TYPES_THEN: SqlTypeOverrides = { timestamp: { postgres: 'text', duckdb: 'VARCHAR' }, json: { postgres: 'jsonb' } };

/** v_daily_results as the initial migration created it then, reading the day off the text. */
const DAILY_THEN = `SELECT substr(created_at, 1, 10) AS day, result_id, brand_id,
  COUNT(*) AS total,
  SUM(CASE WHEN result_final THEN 1 ELSE 0 END) AS final
FROM authentications
GROUP BY substr(created_at, 1, 10), result_id, brand_id`;

/** Views the initial migration creates today that the release before typed times did not have. */
const VIEWS_SINCE = new Set(['v_result_turnaround', 'v_session_timeline']);

const stepsThen: readonly MigrationStep[] = initial.steps.filter((step) => step.kind !== 'createView' || !VIEWS_SINCE.has(step.view.name)).map((step): MigrationStep => {
  if (step.kind === 'createTable') return { ...step, types: TYPES_THEN };
  if (step.kind === 'createView' && step.view.name === 'v_daily_results') return { ...step, view: { ...step.view, sql: DAILY_THEN, fragments: {} } };
  return step;
});

/** The initial migration as the release before typed times ran it. */
const initialThen: MigrationFile = {
  name: initial.name,
  steps: stepsThen,
  up: (knex) => applyStepsWithKnex(knex, stepsThen),
  down: (knex) => revertStepsWithKnex(knex, stepsThen),
};

/**
 * Creates `target` as the release before typed times left it: only the
 * initial migration applied, with text times (and jsonb in PostgreSQL), and
 * `rows` written as that release wrote them (times as ISO text).
 */
export async function createTargetBeforeTypedTimes(target: string, rows: Readonly<Record<string, readonly object[]>>): Promise<void> {
  const parsed = parseTarget(target);
  if (parsed.kind === 'duckdb') {
    await mkdir(dirname(parsed.path), { recursive: true });
    const instance = await DuckDBInstance.create(parsed.path);
    const connection = await instance.connect();
    try {
      const db = {
        all: async (sql: string, params: readonly unknown[] = []) => (await connection.runAndReadAll(sql, params as never)).getRowObjectsJS(),
        run: async (sql: string, params: readonly unknown[] = []) => Number((await connection.run(sql, params as never)).rowsChanged),
      };
      await migrateDuckdb(db, [initialThen], '2025-11-22T00:00:00.000Z');
      for (const [table, tableRows] of Object.entries(rows)) {
        for (const row of tableRows) {
          const columns = Object.keys(row);
          await db.run(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`, Object.values(row) as unknown[]);
        }
      }
      await connection.run('CHECKPOINT');
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
    return;
  }
  let knex: Knex;
  let schemaName: string | undefined;
  if (parsed.kind === 'sqlite') {
    await mkdir(dirname(parsed.path), { recursive: true });
    knex = knexFactory({ client: 'better-sqlite3', connection: { filename: parsed.path }, useNullAsDefault: true });
  } else {
    knex = knexFactory({ client: 'pg', connection: parsed.connectionString, searchPath: [parsed.schema] });
    schemaName = parsed.schema;
    await knex.raw(`CREATE SCHEMA IF NOT EXISTS "${parsed.schema}"`);
  }
  try {
    await knex.migrate.latest({ migrationSource: new StaticMigrationSource([initialThen]), ...(schemaName ? { schemaName } : {}) });
    for (const [table, tableRows] of Object.entries(rows)) {
      // SQLite has no booleans: that release stored 0/1.
      const values = tableRows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'boolean' && parsed.kind === 'sqlite' ? Number(v) : v])));
      if (values.length > 0) await knex(table).insert(values);
    }
  } finally {
    await knex.destroy();
  }
}
