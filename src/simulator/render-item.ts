import { organizationNameOf, type Account } from './account.js';
import { findBrand, findMaterial, resultDisplay, retakeDisplay, type Language } from './catalog.js';
import { epochFromMicros, isoFromMicros } from './iso-time.js';
import { DEEP_NESTING_KEY, DEEP_NESTING_MARK, hugeId, plantPoison } from './poison.js';
import type { SessionRecord } from './session-record.js';

export interface ServiceWarning {
  code: string;
  message: string;
  /** Not in the spec's warning table; the service may add keys, and it tells a page's warnings apart. */
  service_id: string;
}

export interface RenderContext {
  language: Language;
  /** Username of the requester; a parent owned by someone else is not shown. Null for webhook deliveries. */
  viewer: string | null;
  resolve: (serviceId: string) => SessionRecord | undefined;
  /** Base URL of the service, for fingerprint_parent.url. */
  baseUrl: string;
  /** The owner's account (v2 names owners by id). */
  account: (username: string) => Account;
  /** Present when photo URLs were asked for; their expiry is one hour after `nowMs`. */
  photosAtMs?: number;
  /** Webhook deliveries carry update_counter and never fingerprint_parent. */
  webhook?: boolean;
}

export interface Rendered {
  item: Record<string, unknown>;
  warning: ServiceWarning | null;
}

type Json = Record<string, unknown>;

const PHOTO_LIFETIME_SECONDS = 3600;

function photos(record: SessionRecord, nowMs: number): string[] {
  const expires = Math.floor(nowMs / 1000) + PHOTO_LIFETIME_SECONDS;
  return ['front', 'back', 'logo'].map(
    (name) => `https://photos.example.com/${record.serviceId}/${name}.jpg?expires=${expires}`,
  );
}

function v14Owner(owner: string): Json {
  return { organization: { name: organizationNameOf(owner) }, user: { username: owner } };
}

function v14Status(record: SessionRecord, language: Language): Json {
  return {
    flag: record.flag,
    result: {
      id: record.resultId,
      display: resultDisplay(record.resultId, record.final, language),
      final: record.final,
    },
  };
}

function v14Timestamp(record: SessionRecord): Json {
  return { display: isoFromMicros(record.createdMicros), epoch: epochFromMicros(record.createdMicros) };
}

function addExtraKeys(record: SessionRecord, item: Json): void {
  if (record.extraKeys >= 1) item.labels = ['resale'];
  if (record.extraKeys >= 2) (item.activity as Json).capture_device = record.deviceId;
}

/** Makes the item malformed the way the record says the service returns it. */
export function corrupt(record: SessionRecord, item: Json): void {
  switch (record.bad) {
    case null:
      return;
    case 'missing_service_id':
      delete item.service_id;
      return;
    case 'epoch_string':
      (item.timestamp as Json).epoch = String(epochFromMicros(record.createdMicros));
      return;
    case 'missing_timestamp':
      delete item.timestamp;
      return;
    case 'final_not_boolean':
      ((item.status as Json).result as Json).final = record.final ? 'yes' : 'no';
      return;
    case 'huge_id':
      item.service_id = hugeId(record.serviceId);
      return;
    case 'deep_nesting':
      item[DEEP_NESTING_KEY] = DEEP_NESTING_MARK;
      return;
    case 'duplicate_on_page':
      return;
  }
}

function v14Authentication(record: SessionRecord, ctx: RenderContext): Json {
  const brand = findBrand(record.brandId);
  const material = brand ? findMaterial(brand, record.materialId) : undefined;
  const item: Json = {
    service_id: record.serviceId,
    activity: {
      name: 'authentication',
      form_factor: record.formFactor,
      product_category: record.productCategory,
      product_group: record.productGroup,
    },
    certificate: {
      preview: `https://certificates.example.com/preview/${record.serviceId}.png`,
      site: `https://certificates.example.com/c/${record.serviceId}`,
    },
    owner: v14Owner(record.owner),
    properties: {
      brand: { id: record.brandId, display: brand?.display[ctx.language] ?? record.brandId },
      material: { id: record.materialId, display: material?.display[ctx.language] ?? record.materialId },
    },
    status: v14Status(record, ctx.language),
    text_fields: {
      customer_item_id: record.customerItemId,
      identifier: record.identifier,
      style_code: record.styleCode,
      us_size: record.usSize,
    },
    timestamp: v14Timestamp(record),
  };
  if (ctx.photosAtMs !== undefined) item.images = { photos: photos(record, ctx.photosAtMs) };
  return item;
}

function v14Fingerprint(record: SessionRecord, ctx: RenderContext): Rendered {
  const item: Json = {
    service_id: record.serviceId,
    activity: { name: 'fingerprint', mode: record.mode, form_factor: record.formFactor },
    owner: v14Owner(record.owner),
    status: v14Status(record, ctx.language),
    text_fields: { customer_item_id: record.customerItemId },
    timestamp: v14Timestamp(record),
  };
  let warning: ServiceWarning | null = null;
  if (record.mode === 'compare' && record.parentId !== null && ctx.webhook !== true) {
    const parent = ctx.resolve(record.parentId);
    if (parent !== undefined && (ctx.viewer === null || parent.owner === ctx.viewer)) {
      item.fingerprint_parent = {
        activity: { form_factor: parent.formFactor, mode: parent.mode, name: 'fingerprint' },
        service_id: parent.serviceId,
        text_fields: { customer_item_id: parent.customerItemId },
        url: `${ctx.baseUrl}/v1/fingerprints/${parent.serviceId}`,
      };
    } else {
      item.fingerprint_parent = {};
      warning = {
        code: 'fingerprint_parent_not_authorized',
        message: `The parent of fingerprint session ${record.serviceId} is not accessible to this account.`,
        service_id: record.serviceId,
      };
    }
  }
  return { item, warning };
}

/** A session as the v1.4 interface shows it. */
export function renderV14(record: SessionRecord, ctx: RenderContext): Rendered {
  const rendered: Rendered =
    record.resource === 'authentications'
      ? { item: v14Authentication(record, ctx), warning: null }
      : v14Fingerprint(record, ctx);
  addExtraKeys(record, rendered.item);
  if (ctx.webhook === true) rendered.item.update_counter = record.updateCounter;
  corrupt(record, rendered.item);
  if (record.poison) plantPoison(rendered.item);
  return rendered;
}

function v2Result(resultId: string, final: boolean, language: Language): Json {
  return { id: resultId, final, display: final ? resultDisplay(resultId, final, language) : null };
}

/** v2 samples name a successful comparison `verified` where v1.4 says `match`. */
const v2ResultId = (record: SessionRecord): string => (record.resultId === 'match' ? 'verified' : record.resultId);

/** A session as the v2.0.0 interface shows it. */
export function renderV2(record: SessionRecord, ctx: RenderContext & { images?: boolean }): Rendered {
  const account = ctx.account(record.owner);
  const authentication = record.resource === 'authentications';
  const brand = findBrand(record.brandId);
  const resultId = v2ResultId(record);
  const status: Json = {
    result: v2Result(resultId, record.final, ctx.language),
    initial_result: authentication ? v2Result(record.initialResultId, true, ctx.language) : null,
    flag: record.flag,
  };
  if (authentication && record.resultId === 'unidentified') {
    status.retake = { retake_required: record.retakeRequired, display: retakeDisplay(ctx.language) };
  }
  const timestamp: Json = { created_at: isoFromMicros(record.createdMicros) };
  if (record.updatedMicros !== null) timestamp.last_updated_at = isoFromMicros(record.updatedMicros);
  const item: Json = {
    service_id: record.serviceId,
    timestamp,
    status,
    activity: {
      form_factor: record.formFactor,
      name: authentication ? 'authentication' : 'fingerprint',
      product_category: record.productCategory,
      product_group: record.productGroup,
      mode: record.mode,
    },
    properties: authentication
      ? {
          customer_item_id: record.customerItemId,
          brand: record.brandId,
          material: record.materialId,
          device_id: record.deviceId,
        }
      : {
          customer_item_id: record.customerItemId,
          brand: { id: record.brandId, name: brand?.display[ctx.language] ?? record.brandId },
          device_id: record.deviceId,
          app_version: record.appVersion,
        },
    owner: { organization_id: account.organizationId, user_id: account.userId },
    certificate:
      authentication && record.final
        ? {
            certificate_id: `cert_${record.serviceId}`,
            preview: `https://certificates.example.com/preview/${record.serviceId}.png`,
          }
        : null,
    text_fields: authentication
      ? { identifier: record.identifier, style_code: record.styleCode, us_size: record.usSize }
      : null,
    images:
      ctx.images === true
        ? {
            front: {
              url: `https://photos.example.com/${record.serviceId}/front.jpg`,
              metadata: { width: '2048', height: '1536' },
            },
            logo: {
              url: `https://photos.example.com/${record.serviceId}/logo.jpg`,
              metadata: { width: '1024', height: '1024' },
            },
          }
        : null,
    catalog: null,
    fingerprint_parent:
      record.parentId !== null && ctx.webhook !== true
        ? { service_id: record.parentId, relationship_type: 'compared_to' }
        : null,
  };
  if (ctx.webhook === true) {
    delete item.fingerprint_parent;
    item.update_counter = record.updateCounter;
  }
  if (record.extraKeys >= 1) item.labels = ['resale'];
  if (record.bad === 'missing_service_id') delete item.service_id;
  // v2 has no epoch: its "wrong type" counterpart is a created_at that is not a string.
  if (record.bad === 'epoch_string') timestamp.created_at = epochFromMicros(record.createdMicros);
  if (record.bad === 'missing_timestamp') delete item.timestamp;
  if (record.bad === 'final_not_boolean') (status.result as Json).final = 'yes';
  if (record.bad === 'huge_id') item.service_id = hugeId(record.serviceId);
  if (record.bad === 'deep_nesting') item[DEEP_NESTING_KEY] = DEEP_NESTING_MARK;
  if (record.poison) plantPoison(item);
  return { item, warning: null };
}
