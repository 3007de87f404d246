/**
 * Webhooks: the inbox of verified deliveries and the mirrors of the account's webhooks and domains. Part of
 * TABLES (schema.ts).
 */

import { col } from './column.js';
import type { TableDef } from './table-def.js';

export const WEBHOOK_TABLES: readonly TableDef[] = [
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
];
