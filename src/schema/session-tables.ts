/**
 * The session tables: one row per authentication and fingerprint session, and the text fields, images and
 * warnings of each. Part of TABLES (schema.ts), whose comment gives the rules the column names keep to.
 */

import { col } from './column.js';
import type { ColumnDef, IndexDef, TableDef } from './table-def.js';

/** Columns every session table shares, in contract order around the resource-specific ones. */
const sessionHead = (): ColumnDef[] => [
  col('service_id', 'text', 'Identifier of the session at the service.', {
    v14: 'service_id',
    v2: 'service_id',
    nullable: false,
  }),
  col('account', 'text', 'Name of the configured account whose token saw the row (`default` with one account).', {
    nullable: false,
  }),
  col('api_version', 'text', "Interface of the observation that wrote the row: '1.4' or '2'.", { nullable: false }),
];

const ownerColumns = (): ColumnDef[] => [
  col('organization_name', 'text', 'Owning organization (v1.4).', { v14: 'owner.organization.name' }),
  col('username', 'text', 'Owning user (v1.4).', { v14: 'owner.user.username' }),
  col('organization_id', 'text', 'Owning organization id (v2).', { v2: 'owner.organization_id' }),
  col('user_id', 'text', 'Owning user id (v2).', { v2: 'owner.user_id' }),
];

const sessionTail = (): ColumnDef[] => [
  col('created_at', 'timestamp', 'When the session was created, ISO 8601 UTC with microseconds.', {
    v14: 'timestamp.epoch (rendered; the instant of timestamp.display)',
    v2: 'timestamp.created_at (normalized)',
  }),
  col('created_epoch', 'real', 'When the session was created, Unix epoch seconds (the crawl windows are on this).', {
    v14: 'timestamp.epoch',
    v2: 'timestamp.created_at (computed)',
  }),
  col('last_updated_at', 'timestamp', 'Last change at the service, when the service says (v2 only).', {
    v2: 'timestamp.last_updated_at (normalized)',
  }),
  col(
    'update_counter',
    'integer',
    'Highest webhook update_counter applied to the row; null until a webhook delivered the session.',
    { v14: 'update_counter (webhook deliveries)', v2: 'update_counter (webhook deliveries)' },
  ),
  col('first_seen_at', 'timestamp', 'When ivsync first stored the session.', { nullable: false }),
  col('last_synced_at', 'timestamp', 'When ivsync last saw the session (a page, a GET or a webhook).', {
    nullable: false,
  }),
  col(
    'missing_since',
    'timestamp',
    "Set when a complete pass over the session's window no longer returned it (ownership moved, access " +
      'removed); null while it is returned.',
  ),
  col('source', 'text', "How the stored observation arrived: 'search', 'lookup', 'get' or 'webhook'.", {
    nullable: false,
  }),
  col('raw', 'json', 'The item exactly as received, so nothing the service sends is ever lost.', {
    v14: '(whole item)',
    v2: '(whole item)',
    nullable: false,
  }),
];

/** What a child table's rows do when their session row is deleted by hand (src/store/session-triggers.ts). */
const FOLLOW_THEIR_SESSION =
  ' A session row deleted (or its service_id changed) by hand takes its rows here with it, unless the other ' +
  'session table holds its id: triggers in SQLite and PostgreSQL; DuckDB has none.';

/**
 * The non-final sessions that are not missing, each with what the sync, the
 * refresh policy and the check ages read of it: those queries read the index
 * alone, its entries in order, where an index of `result_final` (before
 * 20261201000000_non_final_index) led to a table page per session. At 10M
 * sessions a million are not final, and those reads took most of a daemon
 * tick. The condition is spelled as the queries spell it (session-table.ts,
 * nonFinal), which SQLite requires of a partial index.
 */
const nonFinalIndex = (table: string): IndexDef => ({
  name: `${table}_non_final_idx`,
  columns: [
    'account',
    'created_epoch',
    'service_id',
    'last_synced_at',
    'first_seen_at',
    'source',
    // What the condition reads: SQLite reads a partial index alone only when it holds those columns too.
    'result_final',
    'missing_since',
  ],
  where: 'result_final = FALSE AND missing_since IS NULL',
});

/**
 * The sessions the service no longer returns, a few of a history: `status`
 * counts them here, and the stored sessions of a range are the account's
 * created times less these (session-store.ts, storedEpochs), each read from an
 * index alone.
 */
const missingIndex = (table: string): IndexDef => ({
  name: `${table}_missing_idx`,
  columns: ['account', 'created_epoch', 'missing_since'],
  where: 'missing_since IS NOT NULL',
});

export const SESSION_TABLES: readonly TableDef[] = [
  {
    name: 'authentications',
    description:
      'One row per authentication session (activity.name = authentication), v1.4 and v2 observations merged; ' +
      'newer never loses to older.',
    primaryKey: ['service_id'],
    indexes: [
      { columns: ['account', 'created_epoch'] },
      { columns: ['customer_item_id'] },
      nonFinalIndex('authentications'),
      missingIndex('authentications'),
    ],
    columns: [
      ...sessionHead(),
      col('form_factor', 'text', 'microscopic, free_camera, lightbox, ...', {
        v14: 'activity.form_factor',
        v2: 'activity.form_factor',
      }),
      col('product_category', 'text', 'luxury, deprecated, ...', {
        v14: 'activity.product_category',
        v2: 'activity.product_category',
      }),
      col('product_group', 'text', 'bags, rings, ...', { v14: 'activity.product_group', v2: 'activity.product_group' }),
      col('brand_id', 'text', 'Machine identifier of the brand.', {
        v14: 'properties.brand.id (or properties.brand as a string)',
        v2: 'properties.brand (string) or properties.brand.id',
      }),
      col('brand_display', 'text', 'Display name of the brand (language of Accept-Language).', {
        v14: 'properties.brand.display (when properties.brand is an object)',
        v2: 'properties.brand.name (when properties.brand is an object)',
      }),
      col('material_id', 'text', 'Machine identifier of the material.', {
        v14: 'properties.material.id (or properties.material as a string)',
        v2: 'properties.material (string) or properties.material.id',
      }),
      col('material_display', 'text', 'Display name of the material.', {
        v14: 'properties.material.display (when properties.material is an object)',
        v2: 'properties.material.name (when properties.material is an object)',
      }),
      col('result_id', 'text', 'authentic, unidentified, ...', { v14: 'status.result.id', v2: 'status.result.id' }),
      col('result_display', 'text', 'Display string of the result.', {
        v14: 'status.result.display',
        v2: 'status.result.display',
      }),
      col('result_final', 'boolean', 'Whether the result is final; non-final sessions are refreshed by sync.', {
        v14: 'status.result.final',
        v2: 'status.result.final',
      }),
      col('initial_result_id', 'text', 'First result of the session (v2).', { v2: 'status.initial_result.id' }),
      col('flag', 'text', 'Session flag; null when none.', { v14: 'status.flag', v2: 'status.flag' }),
      col('retake_required', 'boolean', 'Whether the service asks for a retake (v2).', {
        v2: 'status.retake.retake_required',
      }),
      col('customer_item_id', 'text', "The caller's own item identifier (order id, SKU).", {
        v14: 'text_fields.customer_item_id',
        v2: 'properties.customer_item_id (else text_fields.customer_item_id)',
      }),
      col('identifier', 'text', 'Item identifier, e.g. a code printed on the item.', {
        v14: 'text_fields.identifier',
        v2: 'text_fields.identifier',
      }),
      col('style_code', 'text', 'Style code text field.', {
        v14: 'text_fields.style_code',
        v2: 'text_fields.style_code',
      }),
      col('us_size', 'text', 'US size text field.', { v14: 'text_fields.us_size', v2: 'text_fields.us_size' }),
      ...ownerColumns(),
      col('certificate_id', 'text', 'Certificate id (v2).', { v2: 'certificate.certificate_id' }),
      col('certificate_preview', 'text', 'Shareable preview URL of the certificate.', { v14: 'certificate.preview' }),
      col('certificate_site', 'text', 'Certificate page URL.', { v14: 'certificate.site' }),
      ...sessionTail(),
    ],
  },
  {
    name: 'fingerprints',
    description:
      'One row per fingerprint session (register or compare), v1.4 and v2 merged. A compare session whose ' +
      'parent the account may not read has parent_accessible = false.',
    primaryKey: ['service_id'],
    indexes: [
      { columns: ['account', 'created_epoch'] },
      { columns: ['parent_service_id'] },
      nonFinalIndex('fingerprints'),
      missingIndex('fingerprints'),
    ],
    columns: [
      ...sessionHead(),
      col('mode', 'text', 'register or compare.', { v14: 'activity.mode', v2: 'activity.mode' }),
      col('form_factor', 'text', 'e.g. microscopic.', { v14: 'activity.form_factor', v2: 'activity.form_factor' }),
      col('result_id', 'text', 'match, registered, verified, ...', { v14: 'status.result.id', v2: 'status.result.id' }),
      col('result_display', 'text', 'Display string of the result.', {
        v14: 'status.result.display',
        v2: 'status.result.display',
      }),
      col('result_final', 'boolean', 'Whether the result is final.', {
        v14: 'status.result.final',
        v2: 'status.result.final',
      }),
      col('flag', 'text', 'Session flag; null when none.', { v14: 'status.flag', v2: 'status.flag' }),
      col('customer_item_id', 'text', "The caller's own item identifier.", {
        v14: 'text_fields.customer_item_id',
        v2: 'properties.customer_item_id (else text_fields.customer_item_id)',
      }),
      col('parent_service_id', 'text', 'The registration a compare session was compared against.', {
        v14: 'fingerprint_parent.service_id (when the parent is shown)',
        v2: 'fingerprint_parent.service_id (when the parent is shown)',
      }),
      col('parent_customer_item_id', 'text', "The parent's customer item id.", {
        v14: 'fingerprint_parent.text_fields.customer_item_id (when the parent is shown)',
      }),
      col('parent_relationship_type', 'text', 'How the session relates to its parent (v2).', {
        v2: 'fingerprint_parent.relationship_type (when the parent is shown)',
      }),
      col(
        'parent_accessible',
        'boolean',
        'True when the parent is shown; false when the service answered with an empty fingerprint_parent (the ' +
          'partial case, with the warning fingerprint_parent_not_authorized in session_warnings); null for ' +
          'sessions without a parent.',
        { v14: 'fingerprint_parent (service_id present)', v2: 'fingerprint_parent (service_id present)' },
      ),
      ...ownerColumns(),
      ...sessionTail(),
    ],
  },
  {
    name: 'session_text_fields',
    description:
      'Every text field of a session (authentications and fingerprints), one row per key.' + FOLLOW_THEIR_SESSION,
    primaryKey: ['service_id', 'key'],
    columns: [
      col('service_id', 'text', 'The session.', { nullable: false }),
      col('key', 'text', 'Text field name.', { v14: 'text_fields.<key>', v2: 'text_fields.<key>', nullable: false }),
      col('value', 'text', 'Text field value (non-strings as JSON).', {
        v14: 'text_fields.<key>',
        v2: 'text_fields.<key>',
      }),
    ],
  },
  {
    name: 'session_images',
    description: 'Images of a session. v1.4 photo URLs are temporary (one hour).' + FOLLOW_THEIR_SESSION,
    primaryKey: ['service_id', 'name'],
    columns: [
      col('service_id', 'text', 'The session.', { nullable: false }),
      col('name', 'text', 'Image name (v2 key) or photo_<n> for v1.4 photos.', {
        v14: 'images.photos[n]',
        v2: 'images.<name>',
        nullable: false,
      }),
      col('url', 'text', 'Image URL when given.', {
        v14: 'images.photos[n] (string or .url)',
        v2: 'images.<name>.url (or images.<name> as a string)',
      }),
      col('metadata', 'json', 'The image entry beyond its URL (v2 metadata map).', {
        v14: 'images.photos[n] without url (object entries)',
        v2: 'images.<name>.metadata',
      }),
    ],
  },
  {
    name: 'session_warnings',
    description: 'Warnings the service attached to a session (partial data is not an error).' + FOLLOW_THEIR_SESSION,
    primaryKey: ['service_id', 'code'],
    columns: [
      col('service_id', 'text', 'The session.', { nullable: false }),
      col('code', 'text', 'e.g. fingerprint_parent_not_authorized.', {
        v14: 'warnings[].code (of the response)',
        v2: 'warnings[].code (of the response)',
        nullable: false,
      }),
      col('message', 'text', 'Human-readable text.', {
        v14: 'warnings[].message (of the response)',
        v2: 'warnings[].message (of the response)',
      }),
      col('seen_at', 'timestamp', 'When the warning was last seen.', { nullable: false }),
    ],
  },
];
