import type { TableDef } from '../../../schema/schema.js';
import { placeholders } from '../placeholders.js';
import type { OnConflict } from '../sql-driver.js';
import { onConflictClause } from '../upsert-clause.js';

/** Rows per INSERT statement; past a few dozen the gain flattens. */
const ROWS_PER_STATEMENT = 64;
/** SQLite's bound-parameter limit (SQLITE_MAX_VARIABLE_NUMBER since 3.32). */
const MAX_PARAMETERS = 32_766;

/**
 * A multi-row INSERT. Inside a transaction, SQLite keeps a statement journal
 * for each statement that may abort halfway (a constraint's default, ABORT,
 * undoes the statement alone): the prior content of every page the statement
 * changes, written to a temporary file past 64 KiB, four of these pages. A
 * 40-account backfill of 100,000 sessions wrote 3.5 GB of it (36 MB without).
 * No caller goes on with a transaction whose write failed (the driver rolls it
 * back), so OR FAIL, which stops at the failing row and keeps no journal,
 * gives the same outcome. An upsert's DO UPDATE aborts whatever the INSERT
 * says: 'replace' keeps its journal.
 */
export function insertSql(table: TableDef, rows: number, onConflict: OnConflict): string {
  const tuple = `(${placeholders(table.columns.length)})`;
  const or = onConflict === 'replace' ? '' : 'OR FAIL ';
  return (
    `INSERT ${or}INTO ${table.name} (${table.columns.map((c) => c.name).join(', ')}) VALUES ` +
    `${new Array<string>(rows).fill(tuple).join(', ')} ${onConflictClause(table, onConflict)}`
  );
}

/** better-sqlite3 cannot bind booleans; SQLite has none and stores 0/1. */
export function bindable(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value === undefined ? null : value;
}

/** Rows one INSERT of a table `width` columns wide takes: ROWS_PER_STATEMENT, within SQLite's parameter limit. */
export function rowsPerStatement(width: number): number {
  return Math.max(1, Math.min(ROWS_PER_STATEMENT, Math.floor(MAX_PARAMETERS / width)));
}
