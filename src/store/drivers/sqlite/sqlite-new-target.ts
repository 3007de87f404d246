import type Database from 'better-sqlite3';
import type { Migration } from '../../migration/migration-step.js';
import { SQLITE_BASELINE } from './sqlite-baseline.js';

/**
 * The schema every migration of a list leaves in a new SQLite file: the
 * statements SQLite keeps for each table, index and view (`sqlite_master`, in
 * the order they were made), knex's bookkeeping tables among them.
 */
export interface SqliteBaseline {
  readonly migrations: readonly string[];
  readonly statements: readonly string[];
}

/** The generated baseline, held to the shape this module reads. */
const BASELINE: SqliteBaseline = SQLITE_BASELINE;

/** Whether the baseline was made from exactly this list of migrations: any other list takes the steps. */
export function baselineFits(migrations: readonly Migration[]): boolean {
  const names = BASELINE.migrations;
  return migrations.length === names.length && migrations.every((m, i) => m.name === names[i]);
}

/**
 * Makes a new, empty SQLite file what applying the baseline's migrations
 * (`baselineFits`) step by step would: the baseline's statements, and each
 * migration recorded as knex records it (one batch, in order), so that a
 * later release applies its own migrations to it as to any other target.
 * Returns the migrations' names, or null when the file holds anything: it
 * takes the steps (sqlite-driver.ts). Run inside the write transaction that
 * decides, so that of two processes opening the same new file the second
 * finds it made.
 *
 * Why: the steps, through knex, cost a new target about 100 ms of a first
 * backfill's start (knex loaded, fourteen migrations' DDL, views made and
 * made again) on a machine where `node -e 0` takes 80 ms; the statements take 9.
 * test/store/sqlite-baseline.test.ts writes the baseline from the steps and
 * compares a file made each way.
 */
export function createFromBaseline(db: Database.Database, now: number): string[] | null {
  const { objects } = db.prepare('SELECT count(*) AS objects FROM sqlite_master').get() as { objects: number };
  if (objects > 0) return null;
  for (const statement of BASELINE.statements) db.exec(statement);
  // As knex's migrator leaves them: the lock row, then one row per migration, batch 1, time in milliseconds.
  db.prepare('INSERT INTO knex_migrations_lock (is_locked) VALUES (0)').run();
  const record = db.prepare('INSERT INTO knex_migrations (name, batch, migration_time) VALUES (?, 1, ?)');
  for (const name of BASELINE.migrations) record.run(name, now);
  return [...BASELINE.migrations];
}
