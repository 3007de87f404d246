import { table, type ColumnDef } from '../store/schema.js';
import type { Sink } from '../store/sink.js';

/** What the management commands write through: the mirror replace, and a read of what is mirrored now. */
export type MirrorSink = Pick<Sink, 'replaceMirror'> & {
  query(sql: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
};

/** A value read back from any target, as the row type has it (SQLite booleans are 0/1, DuckDB integers may be bigint). */
function typed(column: ColumnDef, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (column.type) {
    case 'boolean':
      return typeof value === 'boolean' ? value : Number(value) !== 0;
    case 'real':
    case 'integer':
      return Number(value);
    case 'json':
      return typeof value === 'string' ? value : JSON.stringify(value);
    default:
      return value;
  }
}

/** The account's mirrored rows of a mirror table, typed. */
export async function mirroredRows(sink: MirrorSink, tableName: 'webhooks' | 'domains', account: string): Promise<Record<string, unknown>[]> {
  const def = table(tableName);
  const rows = await sink.query(`SELECT * FROM ${def.name} WHERE account = ?`, [account]);
  return rows.map((row) => Object.fromEntries(def.columns.map((c) => [c.name, typed(c, row[c.name])])));
}

/**
 * Inserts or replaces rows of a mirror table by primary key and keeps the
 * account's other rows: the Sink only replaces a mirror as a whole, so the
 * rows there are read back first. Used after create, show and deactivate,
 * which each see one webhook.
 */
export async function upsertMirrorRows(
  sink: MirrorSink,
  tableName: 'webhooks' | 'domains',
  account: string,
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  const key = tableName === 'webhooks' ? 'webhook_uuid' : 'domain_uuid';
  const merged = new Map<unknown, Record<string, unknown>>();
  for (const row of await mirroredRows(sink, tableName, account)) merged.set(row[key], row);
  for (const row of rows) merged.set(row[key], row);
  await sink.replaceMirror(tableName, account, [...merged.values()]);
}
