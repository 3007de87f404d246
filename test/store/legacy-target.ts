import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import knexFactory, { type Knex } from 'knex';
import { MIGRATIONS } from '../../migrations/index.js';
import { migrateDuckdb } from '../../src/store/drivers/duckdb/duckdb-migrator.js';
import type { Migration } from '../../src/store/migration/migration-step.js';
import { parseTarget } from '../../src/store/target/parse-target.js';
import { StaticMigrationSource } from '../../src/store/drivers/static-migration-source.js';

/** Rows to insert, by table. */
type TableRows = Readonly<Record<string, readonly object[]>>;

/**
 * Creates `target` as the release before typed times left it: only the
 * initial migration applied, with text times (and jsonb in PostgreSQL), and
 * `rows` written as that release wrote them (times as ISO text).
 */
export function createTargetBeforeTypedTimes(target: string, rows: TableRows): Promise<void> {
  return createTargetAt(target, MIGRATIONS.slice(0, 1), rows);
}

/**
 * Creates `target` with `migrations` applied (the first steps of MIGRATIONS:
 * the schema as of the last of them) and `rows` inserted as given, column by
 * column; SQLite gets booleans as 0/1, as every release wrote them.
 */
export async function createTargetAt(target: string, migrations: readonly Migration[], rows: TableRows): Promise<void> {
  const parsed = parseTarget(target);
  if (parsed.kind === 'duckdb') {
    await mkdir(dirname(parsed.path), { recursive: true });
    const instance = await DuckDBInstance.create(parsed.path);
    const connection = await instance.connect();
    try {
      const db = {
        all: async (sql: string, params: readonly unknown[] = []) =>
          (await connection.runAndReadAll(sql, params as never)).getRowObjectsJS(),
        run: async (sql: string, params: readonly unknown[] = []) =>
          Number((await connection.run(sql, params as never)).rowsChanged),
      };
      await migrateDuckdb(db, migrations, '2025-11-22T00:00:00.000Z');
      for (const [table, tableRows] of Object.entries(rows)) {
        // Many rows a statement: one INSERT per row takes seconds for a backfill's worth.
        for (let i = 0; i < tableRows.length; i += 100) {
          const chunk = tableRows.slice(i, i + 100) as Record<string, unknown>[];
          const columns = Object.keys(chunk[0]!);
          const tuple = `(${columns.map(() => '?').join(', ')})`;
          const values = chunk.flatMap((row) => columns.map((c) => row[c]));
          const sql = `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${chunk.map(() => tuple).join(', ')}`;
          await db.run(sql, values);
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
    await knex.migrate.latest({
      migrationSource: new StaticMigrationSource(migrations),
      ...(schemaName ? { schemaName } : {}),
    });
    for (const [table, tableRows] of Object.entries(rows)) {
      // SQLite has no booleans: that release stored 0/1.
      const values = tableRows.map((row) =>
        Object.fromEntries(
          Object.entries(row).map(([k, v]) => [k, typeof v === 'boolean' && parsed.kind === 'sqlite' ? Number(v) : v]),
        ),
      );
      // Chunks keep PostgreSQL's bind parameters and SQLite's variables within their limits.
      for (let i = 0; i < values.length; i += 100) await knex(table).insert(values.slice(i, i + 100));
    }
  } finally {
    await knex.destroy();
  }
}
