import { readArray, readBoolean, readIdAndName, readObject, readString } from './field-readers.js';
import type { JsonObject } from './field-readers.js';
import { v14ImageRows } from './image-rows.js';
import type { NormalizedAuthentication, NormalizedFingerprint, ObservationContext } from './rows.js';
import { PARENT_COLUMNS, expectActivityName, readCreatedV14, readParent, observationColumns } from './session-fields.js';
import { textFieldRows, textFieldText } from './text-field-rows.js';
import { warningRows } from './warning-rows.js';

/*
 * v1.4 items (api-spec "Authentication session item (v1.4)", "Fingerprint
 * session item (v1.4)"). The paths read here are the `v14` paths of
 * src/store/schema.ts. Both throw ItemShapeError for a known field of the
 * wrong type.
 */

export function v14Authentication(item: JsonObject, serviceId: string, raw: string, ctx: ObservationContext): NormalizedAuthentication {
  const activity = readObject(item, 'activity', 'activity');
  expectActivityName(activity, 'authentication');
  const status = readObject(item, 'status', 'status');
  const result = readObject(status, 'result', 'status.result');
  const properties = readObject(item, 'properties', 'properties');
  const brand = readIdAndName(properties, 'brand', 'display', 'properties.brand');
  const material = readIdAndName(properties, 'material', 'display', 'properties.material');
  const owner = readObject(item, 'owner', 'owner');
  const certificate = readObject(item, 'certificate', 'certificate');
  const textFields = readObject(item, 'text_fields', 'text_fields');
  const images = readObject(item, 'images', 'images');
  const created = readCreatedV14(item);
  const row: NormalizedAuthentication['row'] = {
    service_id: serviceId,
    account: ctx.account,
    api_version: '1.4',
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
    initial_result_id: null,
    flag: readString(status, 'flag', 'status.flag'),
    retake_required: null,
    customer_item_id: textFields === null ? null : textFieldText(textFields['customer_item_id']),
    identifier: textFields === null ? null : textFieldText(textFields['identifier']),
    style_code: textFields === null ? null : textFieldText(textFields['style_code']),
    us_size: textFields === null ? null : textFieldText(textFields['us_size']),
    organization_name: readString(readObject(owner, 'organization', 'owner.organization'), 'name', 'owner.organization.name'),
    username: readString(readObject(owner, 'user', 'owner.user'), 'username', 'owner.user.username'),
    organization_id: null,
    user_id: null,
    certificate_id: null,
    certificate_preview: readString(certificate, 'preview', 'certificate.preview'),
    certificate_site: readString(certificate, 'site', 'certificate.site'),
    ...observationColumns(item, created, null, raw, ctx),
  };
  return {
    resource: 'authentications',
    row,
    textFields: textFieldRows(serviceId, textFields),
    images: v14ImageRows(serviceId, readArray(images, 'photos', 'images.photos')),
    warnings: warningRows(serviceId, item['warnings'], ctx.responseWarnings, false, ctx.observedAt),
    preserve: [],
  };
}

export function v14Fingerprint(item: JsonObject, serviceId: string, raw: string, ctx: ObservationContext): NormalizedFingerprint {
  const activity = readObject(item, 'activity', 'activity');
  expectActivityName(activity, 'fingerprint');
  const status = readObject(item, 'status', 'status');
  const result = readObject(status, 'result', 'status.result');
  const owner = readObject(item, 'owner', 'owner');
  const textFields = readObject(item, 'text_fields', 'text_fields');
  const parent = readParent(item, '1.4');
  const created = readCreatedV14(item);
  const row: NormalizedFingerprint['row'] = {
    service_id: serviceId,
    account: ctx.account,
    api_version: '1.4',
    mode: readString(activity, 'mode', 'activity.mode'),
    form_factor: readString(activity, 'form_factor', 'activity.form_factor'),
    result_id: readString(result, 'id', 'status.result.id'),
    result_display: readString(result, 'display', 'status.result.display'),
    result_final: readBoolean(result, 'final', 'status.result.final'),
    flag: readString(status, 'flag', 'status.flag'),
    customer_item_id: textFields === null ? null : textFieldText(textFields['customer_item_id']),
    parent_service_id: parent.parent_service_id,
    parent_customer_item_id: parent.parent_customer_item_id,
    parent_relationship_type: parent.parent_relationship_type,
    parent_accessible: parent.parent_accessible,
    organization_name: readString(readObject(owner, 'organization', 'owner.organization'), 'name', 'owner.organization.name'),
    username: readString(readObject(owner, 'user', 'owner.user'), 'username', 'owner.user.username'),
    organization_id: null,
    user_id: null,
    ...observationColumns(item, created, null, raw, ctx),
  };
  return {
    resource: 'fingerprints',
    row,
    textFields: textFieldRows(serviceId, textFields),
    images: [],
    warnings: warningRows(serviceId, item['warnings'], ctx.responseWarnings, parent.hidden, ctx.observedAt),
    preserve: parent.unknown ? [...PARENT_COLUMNS] : [],
  };
}
