import { readObject, readString } from './field-readers.js';
import type { JsonObject } from './field-readers.js';
import { v2ImageRows } from './image-rows.js';
import type { NormalizedAuthentication, NormalizedFingerprint, ObservationContext } from './rows.js';
import {
  PARENT_COLUMNS,
  expectActivityName,
  brandColumns,
  headColumns,
  normalizedSession,
  readCreatedV2,
  readIso,
  readParent,
  observationColumns,
} from './session-fields.js';
import { sessionRow } from './plain-columns.js';
import { textFieldText } from './text-field-rows.js';

/*
 * v2.0.0 items (api-spec "v2.0.0 session item"). The paths read here are the
 * `v2` paths of src/schema/schema.ts, read through it (plain-columns.ts); only
 * what a path cannot say is read here. Both throw ItemShapeError for a known
 * field of the wrong type.
 */

export function v2Authentication(
  item: JsonObject,
  serviceId: string,
  raw: string,
  ctx: ObservationContext,
): NormalizedAuthentication {
  expectActivityName(readObject(item, 'activity', 'activity'), 'authentication');
  const properties = readObject(item, 'properties', 'properties');
  const textFields = readObject(item, 'text_fields', 'text_fields');
  const timestamp = readObject(item, 'timestamp', 'timestamp');
  const row = sessionRow<NormalizedAuthentication['row']>('authentications', '2', item, {
    ...headColumns(serviceId, '2', ctx),
    // v2: a string in authentication samples, {id, name} in fingerprint samples; both are read.
    ...brandColumns(properties, 'name'),
    customer_item_id: customerItemId(properties, textFields),
    ...observationColumns(
      item,
      readCreatedV2(timestamp),
      readIso(timestamp, 'last_updated_at', 'timestamp.last_updated_at'),
      raw,
      ctx,
    ),
  });
  return normalizedSession<NormalizedAuthentication>('authentications', row, item, ctx, {
    textFields,
    images: v2ImageRows(serviceId, readObject(item, 'images', 'images')),
    parentHidden: false,
    preserve: [],
  });
}

export function v2Fingerprint(
  item: JsonObject,
  serviceId: string,
  raw: string,
  ctx: ObservationContext,
): NormalizedFingerprint {
  expectActivityName(readObject(item, 'activity', 'activity'), 'fingerprint');
  const properties = readObject(item, 'properties', 'properties');
  const textFields = readObject(item, 'text_fields', 'text_fields');
  const timestamp = readObject(item, 'timestamp', 'timestamp');
  const parent = readParent(item, '2');
  const row = sessionRow<NormalizedFingerprint['row']>('fingerprints', '2', item, {
    ...headColumns(serviceId, '2', ctx),
    customer_item_id: customerItemId(properties, textFields),
    parent_service_id: parent.parent_service_id,
    parent_customer_item_id: parent.parent_customer_item_id,
    parent_relationship_type: parent.parent_relationship_type,
    parent_accessible: parent.parent_accessible,
    ...observationColumns(
      item,
      readCreatedV2(timestamp),
      readIso(timestamp, 'last_updated_at', 'timestamp.last_updated_at'),
      raw,
      ctx,
    ),
  });
  return normalizedSession<NormalizedFingerprint>('fingerprints', row, item, ctx, {
    textFields,
    images: v2ImageRows(serviceId, readObject(item, 'images', 'images')),
    parentHidden: parent.hidden,
    preserve: parent.unknown ? PARENT_COLUMNS : [],
  });
}

/** v2 moved the customer item id into properties; an item that still has it only as a text field keeps it. */
function customerItemId(properties: JsonObject | null, textFields: JsonObject | null): string | null {
  const own = readString(properties, 'customer_item_id', 'properties.customer_item_id');
  if (own !== null) return own;
  return textFields === null ? null : textFieldText(textFields['customer_item_id']);
}
