/**
 * The one schema definition of ivsync, as it is today: the exports, the
 * stores and docs/schema.md read it. The migrations carry their own frozen
 * copies of each change (migrations/README.md), and a test holds a target
 * migrated from nothing to exactly this, so the three targets cannot drift.
 * Each group of tables is declared in a file of its own beside this one; this
 * file puts them in one list.
 *
 * Column names are the analyst's contract (design.md "Tables"): snake_case,
 * flattened from the item's JSON path. Times are stored twice: `*_at` as a
 * `timestamp` (see {@link ColumnType}) and `*_epoch` as a real number of seconds.
 */

import { CATALOG_TABLES } from './catalog-tables.js';
import { HISTORY_TABLES } from './history-tables.js';
import { REFRESH_TABLES } from './refresh-tables.js';
import { REJECTED_ITEMS } from './rejected-items-table.js';
import { SESSION_TABLES } from './session-tables.js';
import { SYNC_LEASES, SYNC_RUNS, SYNC_WINDOWS } from './sync-tables.js';
import { VERIFY_TABLES } from './verify-tables.js';
import { WEBHOOK_TABLES } from './webhook-tables.js';
import type { TableDef } from './table-def.js';

export type { ColumnDef, ColumnType, IndexDef, TableDef, ViewDef } from './table-def.js';

/** Every table, in the order docs/schema.md and the exports list them. */
export const TABLES: readonly TableDef[] = [
  ...SESSION_TABLES,
  SYNC_WINDOWS,
  SYNC_RUNS,
  ...HISTORY_TABLES,
  ...VERIFY_TABLES,
  ...REFRESH_TABLES,
  ...WEBHOOK_TABLES,
  SYNC_LEASES,
  REJECTED_ITEMS,
  ...CATALOG_TABLES,
];

export function table(name: string): TableDef {
  const found = TABLES.find((t) => t.name === name);
  if (!found) throw new Error(`no table ${name} in the schema`);
  return found;
}
