import { organizationNameOf } from './account.js';
import type { SearchFilter } from './search-request.js';
import type { SessionRecord } from './session-record.js';

/** The service's "canonical" text comparison: the same alphanumeric characters, case-insensitive. */
export function canonicalText(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

const TEXT_KEYS = new Set([
  'text_fields.customer_item_id',
  'text_fields.identifier',
  'text_fields.style_code',
  'text_fields.us_size',
  'fingerprint_parent.customer_item_id',
]);

/** The value of a filter key in a session, or null when the session has none. */
export function fieldValue(
  record: SessionRecord,
  key: string,
  resolve: (id: string) => SessionRecord | undefined,
): string | null {
  switch (key) {
    case 'activity.name':
      return record.resource === 'authentications' ? 'authentication' : 'fingerprint';
    case 'activity.form_factor':
      return record.formFactor;
    case 'activity.mode':
      return record.mode;
    case 'owner.organization.name':
      return organizationNameOf(record.owner);
    case 'owner.user.username':
      return record.owner;
    case 'properties.brand.id':
      return record.brandId;
    case 'properties.material.id':
      return record.materialId;
    case 'status.flag':
      return record.flag;
    case 'status.result.id':
      return record.resultId;
    case 'text_fields.customer_item_id':
      return record.customerItemId;
    case 'text_fields.identifier':
      return record.identifier;
    case 'text_fields.style_code':
      return record.styleCode;
    case 'text_fields.us_size':
      return record.usSize;
    case 'fingerprint_parent.service_id':
      return record.parentId;
    case 'fingerprint_parent.customer_item_id':
      return record.parentId === null ? null : (resolve(record.parentId)?.customerItemId ?? null);
    default:
      return null;
  }
}

export function matchesFilter(
  record: SessionRecord,
  filter: SearchFilter,
  resolve: (id: string) => SessionRecord | undefined,
): boolean {
  const actual = fieldValue(record, filter.key, resolve);
  let hit = false;
  if (actual !== null) {
    if (TEXT_KEYS.has(filter.key) && filter.textMode === 'canonical') {
      const wanted = canonicalText(actual);
      hit = filter.values.some((v) => canonicalText(v) === wanted);
    } else {
      hit = filter.values.includes(actual);
    }
  }
  return filter.exclude ? !hit : hit;
}

export function matchesAll(
  record: SessionRecord,
  filters: readonly SearchFilter[],
  resolve: (id: string) => SessionRecord | undefined,
): boolean {
  for (const filter of filters) if (!matchesFilter(record, filter, resolve)) return false;
  return true;
}
