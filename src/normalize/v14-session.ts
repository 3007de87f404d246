import { readArray, readObject } from './field-readers.js';
import type { JsonObject } from './field-readers.js';
import { v14ImageRows } from './image-rows.js';
import type { NormalizedAuthentication, NormalizedFingerprint, ObservationContext } from './rows.js';
import {
  PARENT_COLUMNS,
  expectActivityName,
  brandColumns,
  headColumns,
  normalizedSession,
  readCreatedV14,
  readParent,
  observationColumns,
} from './session-fields.js';
import { sessionRow } from './plain-columns.js';

/*
 * v1.4 items (api-spec "Authentication session item (v1.4)", "Fingerprint
 * session item (v1.4)"). The paths read here are the `v14` paths of
 * src/schema/schema.ts, read through it (plain-columns.ts); only what a path
 * cannot say is read here. Both throw ItemShapeError for a known field of
 * the wrong type.
 */

export function v14Authentication(
  item: JsonObject,
  serviceId: string,
  raw: string,
  ctx: ObservationContext,
): NormalizedAuthentication {
  expectActivityName(readObject(item, 'activity', 'activity'), 'authentication');
  const properties = readObject(item, 'properties', 'properties');
  const textFields = readObject(item, 'text_fields', 'text_fields');
  const images = readObject(item, 'images', 'images');
  const row = sessionRow<NormalizedAuthentication['row']>('authentications', '1.4', item, {
    ...headColumns(serviceId, '1.4', ctx),
    ...brandColumns(properties, 'display'),
    ...observationColumns(item, readCreatedV14(item), null, raw, ctx),
  });
  return normalizedSession<NormalizedAuthentication>('authentications', row, item, ctx, {
    textFields,
    images: v14ImageRows(serviceId, readArray(images, 'photos', 'images.photos')),
    parentHidden: false,
    preserve: [],
  });
}

export function v14Fingerprint(
  item: JsonObject,
  serviceId: string,
  raw: string,
  ctx: ObservationContext,
): NormalizedFingerprint {
  expectActivityName(readObject(item, 'activity', 'activity'), 'fingerprint');
  const textFields = readObject(item, 'text_fields', 'text_fields');
  const parent = readParent(item, '1.4');
  const row = sessionRow<NormalizedFingerprint['row']>('fingerprints', '1.4', item, {
    ...headColumns(serviceId, '1.4', ctx),
    parent_service_id: parent.parent_service_id,
    parent_customer_item_id: parent.parent_customer_item_id,
    parent_relationship_type: parent.parent_relationship_type,
    parent_accessible: parent.parent_accessible,
    ...observationColumns(item, readCreatedV14(item), null, raw, ctx),
  });
  return normalizedSession<NormalizedFingerprint>('fingerprints', row, item, ctx, {
    textFields,
    images: [],
    parentHidden: parent.hidden,
    preserve: parent.unknown ? PARENT_COLUMNS : [],
  });
}
