import { setTimeout as delay } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import type { Knex } from 'knex';
import type { Migration } from '../../migration/migration-step.js';
import { StaticMigrationSource } from '../static-migration-source.js';
import { sessionTriggerNames } from '../../session-triggers.js';

/**
 * Whether every migration of the list has run on a SQLite database: knex's
 * own bookkeeping table, read as knex reads it, without loading knex. One the
 * list does not know (a newer release's) is refused before, when the target
 * is opened (NewerTargetError).
 */
export function migrationsUpToDate(db: Database.Database, migrations: readonly Migration[]): boolean {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'knex_migrations'").get();
  if (table === undefined) return false;
  const rows = db.prepare('SELECT name FROM knex_migrations').all() as { name: unknown }[];
  const done = new Set(rows.map((r) => String(r.name)));
  return migrations.every((m) => done.has(m.name));
}

/**
 * knex, loaded now, on a connection of the caller's (an in-memory database has
 * no other), for its migrator: knex's `connectionPool` takes any pool of
 * tarn's shape, and this one holds the one connection and never closes it.
 */
async function knexOnConnection(db: Database.Database, log: Knex.Logger | undefined): Promise<Knex> {
  const { default: knexFactory } = await import('knex');
  let used = 0;
  const pool = {
    acquire: () => {
      used += 1;
      return { promise: Promise.resolve(db) };
    },
    release: () => {
      used -= 1;
      return true;
    },
    destroy: () => Promise.resolve(),
    numFree: () => 1 - used,
    numUsed: () => used,
    numPendingAcquires: () => 0,
  };
  return knexFactory({
    client: 'better-sqlite3',
    connectionPool: pool,
    useNullAsDefault: true,
    ...(log ? { log } : {}),
  });
}

/**
 * Applies the migrations of the list not yet applied, step by step through
 * knex's migrator on `db`, and returns their names. Another connection's write
 * lock is waited for as the driver waits to begin: retried with a growing
 * pause, without blocking the event loop, up to `busyTimeoutMs`.
 */
export async function applyWithKnex(
  db: Database.Database,
  migrations: readonly Migration[],
  log: Knex.Logger | undefined,
  busyTimeoutMs: number,
): Promise<string[]> {
  const knex = await knexOnConnection(db, log);
  try {
    const config = { migrationSource: new StaticMigrationSource(migrations) };
    const deadline = Date.now() + busyTimeoutMs;
    for (let pause = 2; ; pause = Math.min(pause * 2, 100)) {
      try {
        const [, applied] = (await knex.migrate.latest(config)) as [number, string[]];
        return applied;
      } catch (error) {
        if (!isBusy(error) || Date.now() >= deadline) throw error;
      }
      await delay(pause);
    }
  } finally {
    await knex.destroy();
  }
}

/** Another connection holds the write lock (knex passes better-sqlite3's error through too). */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

/** Whether every trigger by which child rows follow their sessions is there (session-triggers.ts). */
export function hasSessionTriggers(db: Database.Database): boolean {
  const names = sessionTriggerNames('sqlite');
  const found = db
    .prepare(
      "SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND name IN (SELECT value FROM json_each(?))",
    )
    .get(JSON.stringify(names)) as { n: number };
  return found.n === names.length;
}
