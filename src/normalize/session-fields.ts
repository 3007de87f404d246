import { readIdAndName, readInteger, readNumber, readObject, readString } from './field-readers.js';
import type { JsonObject } from './field-readers.js';
import { ItemShapeError } from './item-shape-error.js';
import type { ApiVersion, ImageRow, NormalizedSession, ObservationContext } from './rows.js';
import { textFieldRows, textFieldText } from './text-field-rows.js';
import { warningRows } from './warning-rows.js';
import { isCanonicalIso, isoFromMicros, isStorableIso, microsFromIso, storableIsoFromEpoch } from './time.js';

/*
 * Readers of the parts that v1.4 and v2 sessions, authentications and
 * fingerprints, have in common.
 */

/** The columns that a fingerprint observation without `fingerprint_parent` cannot know. */
export const PARENT_COLUMNS = [
  'parent_service_id',
  'parent_customer_item_id',
  'parent_relationship_type',
  'parent_accessible',
] as const;

export interface CreatedTime {
  created_at: string;
  created_epoch: number;
}

/** Wrong activity.name means the item came through the wrong route: it is not this resource's row. */
export function expectActivityName(activity: JsonObject | null, expected: 'authentication' | 'fingerprint'): void {
  const name = readString(activity, 'name', 'activity.name');
  if (name !== null && name !== expected) throw ItemShapeError.wrongValue('activity.name', `"${expected}"`, name);
}

/** v1.4: `timestamp.epoch` is required; `timestamp.display` is the same instant as text. */
export function readCreatedV14(item: JsonObject): CreatedTime {
  const timestamp = readObject(item, 'timestamp', 'timestamp');
  const epoch = readNumber(timestamp, 'epoch', 'timestamp.epoch');
  readString(timestamp, 'display', 'timestamp.display');
  if (epoch === null || !Number.isFinite(epoch)) {
    throw ItemShapeError.wrongType('timestamp.epoch', 'a number', timestamp === null ? undefined : timestamp['epoch']);
  }
  const createdAt = storableIsoFromEpoch(epoch);
  if (createdAt === null) throw ItemShapeError.wrongValue('timestamp.epoch', STORABLE_EPOCH, epoch);
  return { created_at: createdAt, created_epoch: epoch };
}

/** v2: `timestamp.created_at` is required. */
export function readCreatedV2(timestamp: JsonObject | null): CreatedTime {
  const value = timestamp === null ? undefined : timestamp['created_at'];
  if (typeof value !== 'string') throw ItemShapeError.wrongType('timestamp.created_at', ISO_EXPECTED, value);
  const micros = microsFromIso(value);
  if (micros === null) throw ItemShapeError.wrongValue('timestamp.created_at', ISO_EXPECTED, value);
  const createdAt = isCanonicalIso(value) ? value : isoFromMicros(micros);
  if (!isStorableIso(createdAt)) throw ItemShapeError.wrongValue('timestamp.created_at', STORABLE_ISO, value);
  return { created_at: createdAt, created_epoch: micros / 1_000_000 };
}

/** An optional ISO 8601 time, normalized to UTC with microseconds. */
export function readIso(parent: JsonObject | null, key: string, path: string): string | null {
  const value = parent === null ? undefined : parent[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw ItemShapeError.wrongType(path, ISO_EXPECTED, value);
  const micros = microsFromIso(value);
  if (micros === null) throw ItemShapeError.wrongValue(path, ISO_EXPECTED, value);
  // The service's own text is already in the stored form: keep it rather than render it again.
  const iso = isCanonicalIso(value) ? value : isoFromMicros(micros);
  if (!isStorableIso(iso)) throw ItemShapeError.wrongValue(path, STORABLE_ISO, value);
  return iso;
}

const ISO_EXPECTED = 'an ISO 8601 date-time';
const STORABLE_ISO = 'a date-time in the years 1 to 9999';
const STORABLE_EPOCH = 'epoch seconds in the years 1 to 9999';

/** Webhook deliveries carry update_counter per item; the context may pass it in too. */
export function readUpdateCounter(item: JsonObject, ctx: ObservationContext): number | null {
  const own = readInteger(item, 'update_counter', 'update_counter');
  return ctx.updateCounter ?? own;
}

export interface ParentFields {
  parent_service_id: string | null;
  parent_customer_item_id: string | null;
  parent_relationship_type: string | null;
  parent_accessible: boolean | null;
  /** The service answered with a parent it would not show (an object without service_id). */
  hidden: boolean;
  /** The item does not say (no `fingerprint_parent` key, as in webhook deliveries): keep what is stored. */
  unknown: boolean;
}

const PARENT_UNKNOWN: ParentFields = Object.freeze({
  parent_service_id: null,
  parent_customer_item_id: null,
  parent_relationship_type: null,
  parent_accessible: null,
  hidden: false,
  unknown: true,
});

const NO_PARENT: ParentFields = Object.freeze({ ...PARENT_UNKNOWN, unknown: false });

const PARENT_HIDDEN: ParentFields = Object.freeze({ ...NO_PARENT, parent_accessible: false, hidden: true });

/**
 * `fingerprint_parent`: absent (register sessions, webhook deliveries), null
 * (v2 register sessions), an empty object (the partial case: the parent exists
 * but this account may not read it), or the parent. Only v1.4 shows the
 * parent's text fields and only v2 the relationship type.
 */
export function readParent(item: JsonObject, apiVersion: ApiVersion): ParentFields {
  const value = item['fingerprint_parent'];
  if (value === undefined) return PARENT_UNKNOWN;
  const parent = readObject(item, 'fingerprint_parent', 'fingerprint_parent');
  if (parent === null) return NO_PARENT;
  const serviceId = readString(parent, 'service_id', 'fingerprint_parent.service_id');
  if (serviceId === null || serviceId === '') return PARENT_HIDDEN;
  if (apiVersion === '1.4') {
    const textFields = readObject(parent, 'text_fields', 'fingerprint_parent.text_fields');
    return {
      parent_service_id: serviceId,
      parent_customer_item_id: textFields === null ? null : textFieldText(textFields['customer_item_id']),
      parent_relationship_type: null,
      parent_accessible: true,
      hidden: false,
      unknown: false,
    };
  }
  return {
    parent_service_id: serviceId,
    parent_customer_item_id: null,
    parent_relationship_type: readString(parent, 'relationship_type', 'fingerprint_parent.relationship_type'),
    parent_accessible: true,
    hidden: false,
    unknown: false,
  };
}

/** The columns every session row takes from the observation rather than from the item's fields. */
export function observationColumns(
  item: JsonObject,
  created: CreatedTime,
  lastUpdatedAt: string | null,
  raw: string,
  ctx: ObservationContext,
) {
  return {
    created_at: created.created_at,
    created_epoch: created.created_epoch,
    last_updated_at: lastUpdatedAt,
    update_counter: readUpdateCounter(item, ctx),
    first_seen_at: ctx.observedAt,
    last_synced_at: ctx.observedAt,
    missing_since: null,
    source: ctx.source,
    raw,
  };
}

/**
 * A normalized session from its row and the parts only its builder knows:
 * one text field row per key of `text_fields`, the image rows, the warnings
 * of the item and of its response (the parent warning when the parent is
 * hidden), and the columns it cannot know and so keeps as stored.
 */
export function normalizedSession<S extends NormalizedSession>(
  resource: S['resource'],
  row: S['row'],
  item: JsonObject,
  ctx: ObservationContext,
  parts: { textFields: JsonObject | null; images: ImageRow[]; parentHidden: boolean; preserve: readonly string[] },
): S {
  const serviceId = row.service_id;
  return {
    resource,
    row,
    textFields: textFieldRows(serviceId, parts.textFields),
    images: parts.images,
    warnings: warningRows(serviceId, item['warnings'], ctx.responseWarnings, parts.parentHidden, ctx.observedAt),
    preserve: [...parts.preserve],
  } as S;
}

/** The columns every session row takes from who observed it, not from the item. */
export function headColumns(serviceId: string, apiVersion: ApiVersion, ctx: ObservationContext) {
  return { service_id: serviceId, account: ctx.account, api_version: apiVersion };
}

/** An authentication's brand and material: a bare id, or an object with its id and a display name under `nameKey`. */
export function brandColumns(properties: JsonObject | null, nameKey: 'display' | 'name') {
  const brand = readIdAndName(properties, 'brand', nameKey, 'properties.brand');
  const material = readIdAndName(properties, 'material', nameKey, 'properties.material');
  return { brand_id: brand.id, brand_display: brand.name, material_id: material.id, material_display: material.name };
}
