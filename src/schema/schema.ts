/**
 * The one schema definition of ivsync, as it is today: the exports, the
 * stores and docs/schema.md read it. The migrations carry their own frozen
 * copies of each change (migrations/README.md), and a test holds a target
 * migrated from nothing to exactly this, so the three targets cannot drift.
 *
 * Column names are the analyst's contract (design.md "Tables"): snake_case,
 * flattened from the item's JSON path. Times are stored twice: `*_at` as a
 * `timestamp` (see {@link ColumnType}) and `*_epoch` as a real number of seconds.
 */

import { HISTORY_TABLES } from './history-tables.js';
import { REFRESH_TABLES } from './refresh-tables.js';
import { VERIFY_TABLES } from './verify-tables.js';
import type { ColumnDef, ColumnType, TableDef } from './table-def.js';

export type { ColumnDef, ColumnType, IndexDef, TableDef, ViewDef } from './table-def.js';

const col = (
  name: string,
  type: ColumnType,
  description: string,
  paths: { v14?: string; v2?: string; nullable?: boolean } = {},
): ColumnDef => ({ name, type, description, ...paths });

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

export const TABLES: readonly TableDef[] = [
  {
    name: 'authentications',
    description:
      'One row per authentication session (activity.name = authentication), v1.4 and v2 observations merged; ' +
      'newer never loses to older.',
    primaryKey: ['service_id'],
    indexes: [
      { columns: ['account', 'created_epoch'] },
      { columns: ['customer_item_id'] },
      { columns: ['result_final'] },
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
      { columns: ['result_final'] },
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
    description: 'Every text field of a session (authentications and fingerprints), one row per key.',
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
    description: 'Images of a session. v1.4 photo URLs are temporary (one hour).',
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
    description: 'Warnings the service attached to a session (partial data is not an error).',
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
  {
    name: 'sync_windows',
    description:
      "Crawl checkpoints: one row per epoch window per account, resource and interface. A page's rows and its " +
      "window's checkpoint are written in one transaction.",
    primaryKey: ['account', 'resource', 'api_version', 'window_start'],
    columns: [
      col('account', 'text', 'Configured account name.', { nullable: false }),
      col('resource', 'text', "'authentications' or 'fingerprints'.", { nullable: false }),
      col('api_version', 'text', "'1.4' or '2'.", { nullable: false }),
      col('window_start', 'integer', 'Window start, epoch seconds (inclusive).', { nullable: false }),
      col('window_end', 'integer', 'Window end, epoch seconds (exclusive).', { nullable: false }),
      col(
        'status',
        'text',
        "'pending', 'running', 'done', 'sealed' (all final and older than the overlap: never fetched again " +
          "unless `ivsync reset` or `verify --repair` reopens it) or 'failed'.",
        { nullable: false },
      ),
      col(
        'cursor',
        'text',
        'next_cursor of the last committed page of the current pass, as JSON text (a string cursor is quoted); ' +
          'null before the first page and after the last.',
      ),
      col(
        'pages',
        'integer',
        'Pages committed in the current pass that were asked for this window (a page that reaches into the ' +
          'next windows counts once, here).',
        { nullable: false },
      ),
      col('items', 'integer', 'Items committed in the current pass.', { nullable: false }),
      col('attempts', 'integer', 'Passes started over the window.', { nullable: false }),
      col('error', 'text', 'Last error of the window, if it failed.'),
      col('updated_at', 'timestamp', 'When the row last changed.', { nullable: false }),
      col(
        'pass_from',
        'integer',
        'Start of the range the current pass requests: part of the window for a sync, or adjacent windows too ' +
          'when one request stream pages them (its cursor belongs to that range).',
      ),
      col(
        'pass_to',
        'integer',
        "End of the range the current pass requests; only the window's own part of the range counts for " +
          'synced_to and missing sessions.',
      ),
      col(
        'pass_started_at',
        'timestamp',
        'When the current pass began; sessions of a complete pass not seen since then are marked missing.',
      ),
      col(
        'synced_to',
        'integer',
        'Upper bound of the range that the last complete pass covered; the high-water mark is the largest.',
      ),
    ],
  },
  {
    name: 'sync_runs',
    description: 'One row per command run (backfill, sync, webhook serve, ...).',
    primaryKey: ['id'],
    columns: [
      col('id', 'text', 'Run id (also in every log line of the run).', { nullable: false }),
      col('command', 'text', 'backfill, sync, ...', { nullable: false }),
      col('started_at', 'timestamp', 'When the run started.', { nullable: false }),
      col('finished_at', 'timestamp', 'When the run ended; null while running or after a crash.'),
      col(
        'status',
        'text',
        "'running', 'succeeded', 'failed', 'interrupted' or 'abandoned' (its process died; see error for when " +
          'and how that was found).',
        { nullable: false },
      ),
      col('requests', 'integer', 'Requests sent by the run.', { nullable: false }),
      col('items_written', 'integer', 'Items written by the run.', { nullable: false }),
      col('error', 'text', 'One-line error of a failed run.'),
      col('account', 'text', 'Account the run synced; null for all.'),
      col(
        'holder',
        'text',
        'The process that ran it (host:pid:id, as in sync_leases); null for runs recorded before this column existed.',
      ),
      col(
        'refresh_budget',
        'integer',
        'Requests the refresh of non-final sessions was allowed in the run (every account and resource); ' +
          'null for runs before this column existed and runs without a refresh.',
      ),
      col(
        'refresh_spent',
        'integer',
        'Requests the refresh sent (each attempt); ' +
          'what it left of the budget (refresh_budget - refresh_spent) was saved.',
      ),
      col(
        'throttled',
        'integer',
        "Answers 429 (Too Many Requests) the run's requests met; null for runs before this column existed.",
      ),
      col(
        'retry_wait_ms',
        'integer',
        "Milliseconds the run's retries waited before trying again (429s and passing faults).",
      ),
    ],
  },
  ...HISTORY_TABLES,
  ...VERIFY_TABLES,
  ...REFRESH_TABLES,
  {
    name: 'webhook_deliveries',
    description:
      'The inbox of verified webhook deliveries, written with their items in one transaction before the 200 is sent.',
    primaryKey: ['id'],
    columns: [
      col('id', 'text', 'Delivery id (hash of webhook uuid and body: a replay has the same id).', { nullable: false }),
      col('webhook_uuid', 'text', 'Webhook that delivered.', { v14: 'webhook_uuid' }),
      col('channel', 'text', 'Channel of the webhook.', { v14: 'channel' }),
      col('received_at', 'timestamp', 'When the delivery was received.', { nullable: false }),
      col('signature_ok', 'boolean', 'Whether the signature verified (only verified deliveries are stored).', {
        nullable: false,
      }),
      col('items', 'integer', 'Items in the delivery.', { nullable: false }),
      col('applied', 'integer', 'Items applied (newer than the stored row).', { nullable: false }),
      col('body', 'json', 'The delivery body as received.', { nullable: false }),
    ],
  },
  {
    name: 'webhooks',
    description: "Mirror of the account's active webhooks (management routes).",
    primaryKey: ['webhook_uuid'],
    columns: [
      col('webhook_uuid', 'text', 'Webhook id.', { v14: 'webhook_uuid', v2: 'webhook_uuid', nullable: false }),
      col('account', 'text', 'Configured account name.', { nullable: false }),
      col('channel', 'text', 'Channel.', { v14: 'channel', v2: 'channel' }),
      col('endpoint_url', 'text', 'Delivery URL.', { v14: 'endpoint.value', v2: 'endpoint.value' }),
      col('filters', 'json', 'Filters as given.', { v14: 'filters', v2: 'filters' }),
      col('created_at', 'timestamp', 'Creation time.', {
        v14: 'create_timestamp.epoch (else .display)',
        v2: 'create_timestamp.epoch (else .display)',
      }),
      col('created_epoch', 'real', 'Creation time, epoch seconds.', {
        v14: 'create_timestamp.epoch (else .display)',
        v2: 'create_timestamp.epoch (else .display)',
      }),
      col('organization_name', 'text', 'Owning organization.', {
        v14: 'webhook_owner.organization.name',
        v2: 'webhook_owner.organization.name',
      }),
      col('username', 'text', 'Owning user.', {
        v14: 'webhook_owner.user.username',
        v2: 'webhook_owner.user.username',
      }),
      col('active', 'boolean', 'False once deactivated (the service lists only active webhooks).', {
        v14: 'active (true when absent)',
        v2: 'active (true when absent)',
        nullable: false,
      }),
      col('last_synced_at', 'timestamp', 'When the mirror last saw it.', { nullable: false }),
      col('raw', 'json', 'The webhook object as received.', { nullable: false }),
    ],
  },
  {
    name: 'domains',
    description: 'Mirror of the domains registered to the organization for webhook use.',
    primaryKey: ['domain_uuid'],
    columns: [
      col('domain_uuid', 'text', 'Domain id.', { v14: 'domain_uuid', v2: 'domain_uuid', nullable: false }),
      col('account', 'text', 'Configured account name.', { nullable: false }),
      col('domain_name', 'text', 'Domain name.', { v14: 'domain_name', v2: 'domain_name' }),
      col('organization_name', 'text', 'Owning organization.', {
        v14: 'domain_owner.organization.name',
        v2: 'domain_owner.organization.name',
      }),
      col('username', 'text', 'Owning user.', { v14: 'domain_owner.user.username', v2: 'domain_owner.user.username' }),
      col('created_at', 'timestamp', 'Registration time.', {
        v14: 'create_timestamp.epoch (else .display)',
        v2: 'create_timestamp.epoch (else .display)',
      }),
      col('created_epoch', 'real', 'Registration time, epoch seconds.', {
        v14: 'create_timestamp.epoch (else .display)',
        v2: 'create_timestamp.epoch (else .display)',
      }),
      col('last_synced_at', 'timestamp', 'When the mirror last saw it.', { nullable: false }),
      col('raw', 'json', 'The domain object as received.', { nullable: false }),
    ],
  },
  {
    name: 'sync_leases',
    description:
      'Who syncs what now: one row per lease (e.g. an account into this target), with a heartbeat; a stale ' +
      'lease is taken over.',
    primaryKey: ['name'],
    columns: [
      col('name', 'text', 'What the lease guards, e.g. account:default.', { nullable: false }),
      col('holder', 'text', 'host:pid:run of the process that holds it.', { nullable: false }),
      col('acquired_at', 'timestamp', 'When the holder took it.', { nullable: false }),
      col('heartbeat_at', 'timestamp', 'Last heartbeat of the holder.', { nullable: false }),
    ],
  },
  {
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
  },
  {
    name: 'catalog_brands',
    description: "Brands the account's token may submit (v2 authentication config), replaced on every catalog sync.",
    primaryKey: ['account', 'brand_id'],
    columns: [
      col('account', 'text', 'Configured account name.', { nullable: false }),
      col('brand_id', 'text', 'Machine identifier of the brand (properties.brand of sessions).', {
        v2: 'config.brands[].brand_id',
        nullable: false,
      }),
      col('name', 'text', 'Display name of the brand (language of Accept-Language).', {
        v2: 'config.brands[].display.name',
      }),
      col('raw', 'json', 'The brand entry as received, materials and details included.', {
        v2: 'config.brands[]',
        nullable: false,
      }),
      col('last_synced_at', 'timestamp', 'When the catalog sync last saw the brand.', { nullable: false }),
    ],
  },
  {
    name: 'catalog_materials',
    description: 'Materials of each brand (v2 authentication config).',
    primaryKey: ['account', 'brand_id', 'material_id'],
    columns: [
      col('account', 'text', 'Configured account name.', { nullable: false }),
      col('brand_id', 'text', 'The brand.', { v2: 'config.brands[].brand_id', nullable: false }),
      col('material_id', 'text', 'Machine identifier of the material (properties.material of sessions).', {
        v2: 'config.brands[].materials[].material_id',
        nullable: false,
      }),
      col('name', 'text', 'Display name of the material.', { v2: 'config.brands[].materials[].display.name' }),
    ],
  },
  {
    name: 'catalog_detail_fields',
    description: 'Detail fields (text fields) the app asks for, per brand (v2 authentication config).',
    primaryKey: ['account', 'brand_id', 'field_alias'],
    columns: [
      col('account', 'text', 'Configured account name.', { nullable: false }),
      col('brand_id', 'text', 'The brand.', { v2: 'config.brands[].brand_id', nullable: false }),
      col('field_alias', 'text', 'Key of the field (a text_fields key of sessions).', {
        v2: 'config.brands[].details[].field_alias',
        nullable: false,
      }),
      col('name', 'text', 'Display name of the field.', { v2: 'config.brands[].details[].display.name' }),
    ],
  },
  {
    name: 'catalog_categories',
    description: 'Supported product categories and groups with their brands (v2 supported catalog).',
    primaryKey: ['account', 'product_category', 'customer_product_group'],
    columns: [
      col('account', 'text', 'Configured account name.', { nullable: false }),
      col('product_category', 'text', 'Category (activity.product_category of sessions).', {
        v2: 'categories[].product_category',
        nullable: false,
      }),
      col('customer_product_group', 'text', 'Product group.', {
        v2: 'categories[].customer_product_group',
        nullable: false,
      }),
      col('display_product_category', 'text', 'Display name of the category.', {
        v2: 'categories[].display.product_category',
      }),
      col('display_customer_product_group', 'text', 'Display name of the product group.', {
        v2: 'categories[].display.customer_product_group',
      }),
      col('brands', 'json', 'The brands of the category with their materials, as received.', {
        v2: 'categories[].brands',
      }),
    ],
  },
];

export function table(name: string): TableDef {
  const found = TABLES.find((t) => t.name === name);
  if (!found) throw new Error(`no table ${name} in the schema`);
  return found;
}
