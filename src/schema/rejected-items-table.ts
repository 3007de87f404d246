/** Items kept aside with the reason they could not be stored. Part of TABLES (schema.ts). */

import { col } from './column.js';
import type { TableDef } from './table-def.js';

export const REJECTED_ITEMS: TableDef = {
  name: 'rejected_items',
  description:
    'Items that could not be normalized or stored: kept aside with the reason, never fatal to a run, never ' +
    'silently dropped. ' +
    'Besides malformed items: an id or key (service_id, customer_item_id, parent_service_id, a text field ' +
    'key, a photo name, ' +
    'a warning code) over 1,024 bytes, which not every target can index; an item nested more than 128 levels ' +
    'deep, which ' +
    'not every target can parse; a row a target refused (reason `refused by the target: …`); and the losing ' +
    'copy of a ' +
    'session that one page holds twice (reason `duplicate: …`): the newer copy (the higher update_counter, ' +
    'or else the ' +
    'later one on the page) is stored in the session table as usual, so its service_id is in both tables.',
  primaryKey: ['id'],
  indexes: [{ columns: ['resource', 'service_id'] }],
  columns: [
    col('id', 'text', 'Hash of resource, reason and raw item (the same bad item stored twice is one row).', {
      nullable: false,
    }),
    col('resource', 'text', "'authentications', 'fingerprints', ...", { nullable: false }),
    col(
      'service_id',
      'text',
      'service_id when one could be read; null when it is longer than 1,024 bytes (`raw` holds it).',
    ),
    col('reason', 'text', 'Why the item was rejected (the JSON path and what was expected).', { nullable: false }),
    col(
      'raw',
      'json',
      'The item as received; one JSON string holding its text when it nests more than 128 levels deep.',
      { nullable: false },
    ),
    col('seen_at', 'timestamp', 'When it was last seen.', { nullable: false }),
    col('account', 'text', 'Configured account name.'),
  ],
};
