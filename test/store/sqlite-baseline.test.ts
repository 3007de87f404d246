import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../migrations/index.js';
import { SqliteDriver } from '../../src/store/drivers/sqlite/sqlite-driver.js';
import { openSink } from '../../src/store/open-sink.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { createTargetAt } from './legacy-target.js';

/*
 * A new SQLite target is made from a baseline (sqlite-new-target.ts): the
 * statements that applying every migration step by step leaves in
 * sqlite_master. The first test writes that baseline from the steps
 * (`npx vitest run test/store/sqlite-baseline.test.ts -u` after adding a
 * migration); in CI it fails when the file is not what the steps make. The
 * others compare a file made each way, and show that a list the baseline was
 * not made from still takes the steps.
 */

const BASELINE_MODULE = '../../src/store/drivers/sqlite/sqlite-baseline.ts';

/** What SQLite keeps of a database's schema and of knex's bookkeeping, times left out. */
function catalog(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    return {
      objects: db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid').all(),
      migrations: db.prepare('SELECT id, name, batch FROM knex_migrations ORDER BY id').all(),
      lock: db.prepare('SELECT * FROM knex_migrations_lock').all(),
      sequences: db.prepare('SELECT name, seq FROM sqlite_sequence ORDER BY name').all(),
    };
  } finally {
    db.close();
  }
}

/** The statements that make the schema again, in order: SQLite makes its own indexes and sequence table itself. */
function statements(path: string): string[] {
  return catalog(path)
    .objects.map((o) => o as { name: string; sql: string | null })
    .filter((o) => o.sql !== null && o.name !== 'sqlite_sequence')
    .map((o) => o.sql!);
}

function render(migrations: readonly string[], sql: readonly string[]): string {
  const list = (items: readonly string[]) => items.map((item) => `    ${JSON.stringify(item)},\n`).join('');
  return (
    '// Written by test/store/sqlite-baseline.test.ts from the migrations applied step by step to a new\n' +
    '// SQLite file; `npx vitest run test/store/sqlite-baseline.test.ts -u` writes it again. Not edited by hand.\n' +
    '// Read by sqlite-new-target.ts, which says what it holds (SqliteBaseline); it imports nothing.\n' +
    'export const SQLITE_BASELINE = {\n' +
    `  migrations: [\n${list(migrations)}  ],\n` +
    `  statements: [\n${list(sql)}  ],\n` +
    '};\n'
  );
}

describe('a new SQLite target', () => {
  const tempDir = useTempDir();

  it('is made from the schema the migrations leave, applied step by step (sqlite-baseline.ts)', async () => {
    const path = join(tempDir(), 'steps.sqlite');
    await createTargetAt(`sqlite:${path}`, MIGRATIONS, {});
    await expect(
      render(
        MIGRATIONS.map((m) => m.name),
        statements(path),
      ),
    ).toMatchFileSnapshot(BASELINE_MODULE);
  });

  it('opened new, is the database the steps make: the same schema in the same order, the same migrations', async () => {
    const dir = tempDir();
    const steps = join(dir, 'steps.sqlite');
    await createTargetAt(`sqlite:${steps}`, MIGRATIONS, {});
    const made = join(dir, 'made.sqlite');
    const sink = await openSink(`sqlite:${made}`);
    await sink.close();
    expect(catalog(made)).toEqual(catalog(steps));
    expect(catalog(made).migrations).toHaveLength(MIGRATIONS.length);
  });

  it('with a list of migrations the baseline was not made from, applies them step by step', async () => {
    const dir = tempDir();
    const older = MIGRATIONS.slice(0, 3);
    const steps = join(dir, 'steps.sqlite');
    await createTargetAt(`sqlite:${steps}`, older, {});
    const made = join(dir, 'made.sqlite');
    const driver = await SqliteDriver.open(made);
    try {
      expect(await driver.migrate(older)).toEqual(older.map((m) => m.name));
    } finally {
      await driver.close();
    }
    expect(catalog(made)).toEqual(catalog(steps));
  });
});
