import { readBoolean, readIdAndName, readObject, readString } from './field-readers.js';
import type { JsonObject } from './field-readers.js';
import { v2ImageRows } from './image-rows.js';
import type { NormalizedAuthentication, NormalizedFingerprint, ObservationContext } from './rows.js';
import { PARENT_COLUMNS, expectActivityName, readCreatedV2, readIso, readParent, observationColumns } from './session-fields.js';
import { textFieldRows, textFieldText } from './text-field-rows.js';
import { warningRows } from './warning-rows.js';

/*
 * v2.0.0 items (api-spec "v2.0.0 session item"). The paths read here are the
 * `v2` paths of src/store/schema.ts. Both throw ItemShapeError for a known
 * field of the wrong type.
 */

export function v2Authentication(item: JsonObject, serviceId: string, raw: string, ctx: ObservationContext): NormalizedAuthentication {
  const activity = readObject(item, 'activity', 'activity');
  expectActivityName(activity, 'authentication');
  const status = readObject(item, 'status', 'status');
  const result = readObject(status, 'result', 'status.result');
  const properties = readObject(item, 'properties', 'properties');
  // A string in authentication samples, {id, name} in fingerprint samples: both are read.
  const brand = readIdAndName(properties, 'brand', 'name', 'properties.brand');
  const material = readIdAndName(properties, 'material', 'name', 'properties.material');
  const owner = readObject(item, 'owner', 'owner');
  const certificate = readObject(item, 'certificate', 'certificate');
  const textFields = readObject(item, 'text_fields', 'text_fields');
  const timestamp = readObject(item, 'timestamp', 'timestamp');
  const created = readCreatedV2(timestamp);
  const row: NormalizedAuthentication['row'] = {
    service_id: serviceId,
    account: ctx.account,
    api_version: '2',
    form_factor: readString(activity, 'form_factor', 'activity.form_factor'),
    product_category: readString(activity, 'product_category', 'activity.product_category'),
    product_group: readString(activity, 'product_group', 'activity.product_group'),
    brand_id: brand.id,
    brand_display: brand.name,
    material_id: material.id,
    material_display: material.name,
    result_id: readString(result, 'id', 'status.result.id'),
    result_display: readString(result, 'display', 'status.result.display'),
    result_final: readBoolean(result, 'final', 'status.result.final'),
    initial_result_id: readString(readObject(status, 'initial_result', 'status.initial_result'), 'id', 'status.initial_result.id'),
    flag: readString(status, 'flag', 'status.flag'),
    retake_required: readBoolean(readObject(status, 'retake', 'status.retake'), 'retake_required', 'status.retake.retake_required'),
    customer_item_id: customerItemId(properties, textFields),
    identifier: textFields === null ? null : textFieldText(textFields['identifier']),
    style_code: textFields === null ? null : textFieldText(textFields['style_code']),
    us_size: textFields === null ? null : textFieldText(textFields['us_size']),
    organization_name: null,
    username: null,
    organization_id: readString(owner, 'organization_id', 'owner.organization_id'),
    user_id: readString(owner, 'user_id', 'owner.user_id'),
    certificate_id: readString(certificate, 'certificate_id', 'certificate.certificate_id'),
    certificate_preview: null,
    certificate_site: null,
    ...observationColumns(item, created, readIso(timestamp, 'last_updated_at', 'timestamp.last_updated_at'), raw, ctx),
  };
  return {
    resource: 'authentications',
    row,
    textFields: textFieldRows(serviceId, textFields),
    images: v2ImageRows(serviceId, readObject(item, 'images', 'images')),
    warnings: warningRows(serviceId, item['warnings'], ctx.responseWarnings, false, ctx.observedAt),
    preserve: [],
  };
}

export function v2Fingerprint(item: JsonObject, serviceId: string, raw: string, ctx: ObservationContext): NormalizedFingerprint {
  const activity = readObject(item, 'activity', 'activity');
  expectActivityName(activity, 'fingerprint');
  const status = readObject(item, 'status', 'status');
  const result = readObject(status, 'result', 'status.result');
  const properties = readObject(item, 'properties', 'properties');
  const owner = readObject(item, 'owner', 'owner');
  const textFields = readObject(item, 'text_fields', 'text_fields');
  const timestamp = readObject(item, 'timestamp', 'timestamp');
  const parent = readParent(item, '2');
  const created = readCreatedV2(timestamp);
  const row: NormalizedFingerprint['row'] = {
    service_id: serviceId,
    account: ctx.account,
    api_version: '2',
    mode: readString(activity, 'mode', 'activity.mode'),
    form_factor: readString(activity, 'form_factor', 'activity.form_factor'),
    result_id: readString(result, 'id', 'status.result.id'),
    result_display: readString(result, 'display', 'status.result.display'),
    result_final: readBoolean(result, 'final', 'status.result.final'),
    flag: readString(status, 'flag', 'status.flag'),
    customer_item_id: customerItemId(properties, textFields),
    parent_service_id: parent.parent_service_id,
    parent_customer_item_id: parent.parent_customer_item_id,
    parent_relationship_type: parent.parent_relationship_type,
    parent_accessible: parent.parent_accessible,
    organization_name: null,
    username: null,
    organization_id: readString(owner, 'organization_id', 'owner.organization_id'),
    user_id: readString(owner, 'user_id', 'owner.user_id'),
    ...observationColumns(item, created, readIso(timestamp, 'last_updated_at', 'timestamp.last_updated_at'), raw, ctx),
  };
  return {
    resource: 'fingerprints',
    row,
    textFields: textFieldRows(serviceId, textFields),
    images: v2ImageRows(serviceId, readObject(item, 'images', 'images')),
    warnings: warningRows(serviceId, item['warnings'], ctx.responseWarnings, parent.hidden, ctx.observedAt),
    preserve: parent.unknown ? [...PARENT_COLUMNS] : [],
  };
}

/** v2 moved the customer item id into properties; an item that still has it only as a text field keeps it. */
function customerItemId(properties: JsonObject | null, textFields: JsonObject | null): string | null {
  const own = readString(properties, 'customer_item_id', 'properties.customer_item_id');
  if (own !== null) return own;
  return textFields === null ? null : textFieldText(textFields['customer_item_id']);
}
