import type { Migration } from '../../migration/migration-step.js';
import { duckdbUpStatements } from './duckdb-ddl.js';

/** The part of a DuckDB connection the migrator uses. */
export interface DuckdbExecutor {
  all(sql: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  run(sql: string, params?: readonly unknown[]): Promise<number>;
}

/** Same name and shape as knex's bookkeeping table, so every target answers "which migrations ran" alike. */
const BOOKKEEPING =
  'CREATE TABLE IF NOT EXISTS knex_migrations (id BIGINT PRIMARY KEY, name VARCHAR NOT NULL, batch BIGINT NOT ' +
  'NULL, migration_time VARCHAR NOT NULL)';

/**
 * Applies the pending migrations to a DuckDB database, each in its own
 * transaction with its bookkeeping row, in list order. Returns the names applied.
 */
export async function migrateDuckdb(
  db: DuckdbExecutor,
  migrations: readonly Migration[],
  now: string,
): Promise<string[]> {
  await db.run(BOOKKEEPING);
  const done = new Set((await db.all('SELECT name FROM knex_migrations')).map((r) => String(r.name)));
  const [last] = await db.all(
    'SELECT COALESCE(MAX(id), 0) AS id, COALESCE(MAX(batch), 0) AS batch FROM knex_migrations',
  );
  let id = Number(last?.id ?? 0);
  const batch = Number(last?.batch ?? 0) + 1;
  const catalog = {
    hasTable: async (name: string) =>
      (await db.all("SELECT 1 FROM information_schema.tables WHERE table_schema = 'main' AND table_name = ?", [name]))
        .length > 0,
    hasColumn: async (tableName: string, column: string) =>
      (
        await db.all(
          "SELECT 1 FROM information_schema.columns WHERE table_schema = 'main' AND table_name = ? AND column_name = ?",
          [tableName, column],
        )
      ).length > 0,
    hasPrimaryKey: async (tableName: string) =>
      (
        await db.all(
          'SELECT 1 FROM duckdb_constraints() WHERE database_name = current_database() AND schema_name = ' +
            "'main' AND table_name = ? AND constraint_type = 'PRIMARY KEY'",
          [tableName],
        )
      ).length > 0,
  };
  const applied: string[] = [];
  for (const migration of migrations) {
    if (done.has(migration.name)) continue;
    // Every column's type in one query, read again for each migration (the one before may have changed them).
    let types: Promise<Map<string, string>> | null = null;
    const columnType = async (tableName: string, column: string): Promise<string | null> => {
      types ??= db
        .all(
          'SELECT table_name, column_name, data_type FROM duckdb_columns() WHERE database_name = ' +
            "current_database() AND schema_name = 'main'",
        )
        .then(
          (rows) => new Map(rows.map((r) => [`${String(r.table_name)}.${String(r.column_name)}`, String(r.data_type)])),
        );
      return (await types).get(`${tableName}.${column}`) ?? null;
    };
    const statements = await duckdbUpStatements(migration.steps, { ...catalog, columnType });
    await db.run('BEGIN TRANSACTION');
    try {
      for (const sql of statements) await db.run(sql);
      id += 1;
      await db.run('INSERT INTO knex_migrations (id, name, batch, migration_time) VALUES (?, ?, ?, ?)', [
        id,
        migration.name,
        batch,
        now,
      ]);
      await db.run('COMMIT');
    } catch (error) {
      await db.run('ROLLBACK');
      throw error;
    }
    applied.push(migration.name);
  }
  return applied;
}
