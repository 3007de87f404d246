import type { ColumnDef, ColumnType } from './table-def.js';

/**
 * A column of today's tables: where the value comes from in a v1.4 and a v2 item, when it comes from the item.
 * Shared by the table files declared with item paths (session, sync, webhook, rejected item and catalog tables).
 */
export const col = (
  name: string,
  type: ColumnType,
  description: string,
  paths: { v14?: string; v2?: string; nullable?: boolean } = {},
): ColumnDef => ({ name, type, description, ...paths });
