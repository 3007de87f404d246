import { readCreateTimestamp } from './create-timestamp.js';
import { isJsonObject, objectOrNull, stringOrNull } from './field-readers.js';
import { rawText } from './rejected-row.js';
import type { DomainRow } from './rows.js';

/**
 * The `domains` mirror row of a registered domain (v1.4 or v2: same keys, v2
 * may send null create_timestamp and domain_owner). Null when the object has
 * no domain_uuid.
 */
export function normalizeDomain(obj: unknown, account: string, now: string): DomainRow | null {
  if (!isJsonObject(obj)) return null;
  const uuid = stringOrNull(obj, 'domain_uuid');
  if (uuid === null || uuid === '') return null;
  const owner = objectOrNull(obj, 'domain_owner');
  return {
    domain_uuid: uuid,
    account,
    domain_name: stringOrNull(obj, 'domain_name'),
    organization_name: stringOrNull(objectOrNull(owner, 'organization'), 'name'),
    username: stringOrNull(objectOrNull(owner, 'user'), 'username'),
    ...readCreateTimestamp(obj),
    last_synced_at: now,
    raw: rawText(obj),
  };
}
