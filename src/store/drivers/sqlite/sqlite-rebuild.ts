import type { Knex } from 'knex';
import type { StepTable } from '../../migration/migration-step.js';

/** A view of the target as SQLite keeps it: its name and its CREATE VIEW statement. */
interface StoredView {
  name: string;
  sql: string;
}

/** Whether a table's CREATE TABLE statement makes it WITHOUT ROWID. */
export function isWithoutRowid(createSql: string): boolean {
  return /\)\s*without\s+rowid\s*;?\s*$/i.test(createSql);
}

/**
 * Rebuilds a SQLite table with or without a rowid, rows kept; nothing
 * happens when it is so already. SQLite cannot change this in place: the rows
 * go to a new table built by `build` (the migration's frozen columns and key),
 * in key order so that its pages fill, and it takes the old one's name. The
 * views that name the table are dropped first, since renaming a table checks
 * every view, and created again from their own stored SQL, so they stay what
 * the migrations made them.
 */
export async function rebuildSqliteTable(
  knex: Knex,
  def: StepTable,
  build: (t: Knex.CreateTableBuilder) => void,
  withoutRowid: boolean,
): Promise<void> {
  if ((def.indexes ?? []).length > 0) throw new Error(`${def.name}: a table with indexes is not rebuilt`);
  const tables = (await knex.raw("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", [
    def.name,
  ])) as Array<{ sql: string }>;
  const current = tables[0];
  if (!current) throw new Error(`no table ${def.name}`);
  if (isWithoutRowid(current.sql) === withoutRowid) return;
  const views = (await knex.raw(
    "SELECT name, sql FROM sqlite_schema WHERE type = 'view' AND instr(sql, ?) > 0 ORDER BY name",
    [def.name],
  )) as StoredView[];
  for (const view of views) await knex.raw(`DROP VIEW ${view.name}`);
  const rebuilt = `${def.name}__rebuilt`;
  const [create, ...rest] = knex.schema.createTable(rebuilt, build).toSQL();
  if (!create || rest.length > 0) throw new Error(`${def.name}: expected one CREATE TABLE statement`);
  await knex.raw(withoutRowid ? `${create.sql} WITHOUT ROWID` : create.sql);
  const columns = def.columns.map((c) => c.name).join(', ');
  const key = def.primaryKey.join(', ');
  await knex.raw(`INSERT INTO ${rebuilt} (${columns}) SELECT ${columns} FROM ${def.name} ORDER BY ${key}`);
  await knex.raw(`DROP TABLE ${def.name}`);
  await knex.raw(`ALTER TABLE ${rebuilt} RENAME TO ${def.name}`);
  for (const view of views) await knex.raw(view.sql);
}
