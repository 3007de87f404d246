import { readCreateTimestamp } from './create-timestamp.js';
import { isJsonObject, objectOrNull, stringOrNull } from './field-readers.js';
import { rawText } from './rejected-row.js';
import type { WebhookRow } from './rows.js';

/**
 * The `webhooks` mirror row of a webhook object (v1.4 or v2: same keys, v2
 * may send null create_timestamp and webhook_owner). Null when the object has
 * no webhook_uuid, the one thing the row cannot do without. The service lists
 * only active webhooks and shows no state field, so `active` is true unless
 * the object says otherwise with a boolean `active`.
 */
export function normalizeWebhook(obj: unknown, account: string, now: string): WebhookRow | null {
  if (!isJsonObject(obj)) return null;
  const uuid = stringOrNull(obj, 'webhook_uuid');
  if (uuid === null || uuid === '') return null;
  const owner = objectOrNull(obj, 'webhook_owner');
  const filters = obj['filters'];
  const active = obj['active'];
  return {
    webhook_uuid: uuid,
    account,
    channel: stringOrNull(obj, 'channel'),
    endpoint_url: stringOrNull(objectOrNull(obj, 'endpoint'), 'value'),
    filters: filters === undefined || filters === null ? null : JSON.stringify(filters),
    ...readCreateTimestamp(obj),
    organization_name: stringOrNull(objectOrNull(owner, 'organization'), 'name'),
    username: stringOrNull(objectOrNull(owner, 'user'), 'username'),
    active: typeof active === 'boolean' ? active : true,
    last_synced_at: now,
    raw: rawText(obj),
  };
}
