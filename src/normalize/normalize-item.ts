import { isJsonObject } from './field-readers.js';
import type { JsonObject } from './field-readers.js';
import { ItemShapeError, jsonTypeOf } from './item-shape-error.js';
import { rawText, rejectedRow } from './rejected-row.js';
import type {
  ApiVersion,
  NormalizedBatch,
  NormalizedSession,
  ObservationContext,
  RejectedRow,
  Resource,
} from './rows.js';
import { storableSession } from './storable-session.js';
import { isStorableText } from './storable-text.js';
import { nestsDeeperThan, oversizedKey, oversizedKeyOf, TOO_DEEP } from './stored-bounds.js';
import { v14Authentication, v14Fingerprint } from './v14-session.js';
import { v2Authentication, v2Fingerprint } from './v2-session.js';

/**
 * What an item must have to become a row; anything else that is missing or
 * null is a null column. A field that is present with the wrong type (a known
 * object that is not an object, `status.result.final` not a boolean, an
 * `activity.name` of the other resource, an unparseable v2 time) rejects the
 * item too; unknown keys never do.
 */
export const REQUIRED_FIELDS: Readonly<Record<ApiVersion, readonly string[]>> = Object.freeze({
  '1.4': ['service_id (a non-empty string)', 'timestamp.epoch (a number)'],
  '2': ['service_id (a non-empty string)', 'timestamp.created_at (an ISO 8601 date-time)'],
});

/** The reason an item is kept aside when its id holds a character no target can store (see storable-text.ts). */
export const UNSTORABLE_ID = 'service_id: holds U+0000 or a lone surrogate, which no target can store in a key';

type SessionNormalizer = (
  item: JsonObject,
  serviceId: string,
  raw: string,
  ctx: ObservationContext,
) => NormalizedSession;

const NORMALIZERS: Readonly<Record<ApiVersion, Readonly<Record<Resource, SessionNormalizer>>>> = {
  '1.4': { authentications: v14Authentication, fingerprints: v14Fingerprint },
  '2': { authentications: v2Authentication, fingerprints: v2Fingerprint },
};

/**
 * One item of a page, a GET, a lookup or a webhook delivery: the rows it
 * becomes, or the `rejected_items` row that keeps it aside with the reason.
 * Pure: everything time- or account-dependent comes in `ctx`. `text` is the
 * item's JSON text as received, when the caller has it; else `raw` is the
 * item serialized again.
 */
export function normalizeItem(
  resource: Resource,
  apiVersion: ApiVersion,
  item: unknown,
  ctx: ObservationContext,
  text?: string,
): NormalizedSession | RejectedRow {
  const raw = text ?? rawText(item);
  if (!isJsonObject(item)) {
    return rejectedRow(
      resource,
      `(item): expected an object, got ${jsonTypeOf(item)}`,
      raw,
      null,
      ctx.account,
      ctx.observedAt,
    );
  }
  const serviceId = item['service_id'];
  if (typeof serviceId !== 'string' || serviceId === '') {
    const got = serviceId === '' ? 'an empty string' : jsonTypeOf(serviceId);
    return rejectedRow(
      resource,
      `service_id: expected a non-empty string, got ${got}`,
      raw,
      null,
      ctx.account,
      ctx.observedAt,
    );
  }
  if (!isStorableText(serviceId)) {
    // A replaced character would make an id that names no session at the service (a refresh would mark it missing).
    return rejectedRow(resource, UNSTORABLE_ID, raw, serviceId, ctx.account, ctx.observedAt);
  }
  const longId = oversizedKey('service_id', serviceId);
  if (longId !== null) return rejectedRow(resource, longId, raw, serviceId, ctx.account, ctx.observedAt);
  // Before the field readers, which may serialize a nested value by recursion.
  if (nestsDeeperThan(item)) return rejectedRow(resource, TOO_DEEP, raw, serviceId, ctx.account, ctx.observedAt);
  try {
    const session = storableSession(NORMALIZERS[apiVersion][resource](item, serviceId, raw, ctx));
    const longKey = oversizedKeyOf(session);
    return longKey === null ? session : rejectedRow(resource, longKey, raw, serviceId, ctx.account, ctx.observedAt);
  } catch (error) {
    if (!(error instanceof ItemShapeError)) throw error;
    return rejectedRow(resource, error.message, raw, serviceId, ctx.account, ctx.observedAt);
  }
}

/**
 * A page (or a delivery) of one resource: sessions and rejected items, in item
 * order. `texts`, when given, holds each item's JSON text as received, one per item.
 */
export function normalizeItems(
  resource: Resource,
  apiVersion: ApiVersion,
  items: readonly unknown[],
  ctx: ObservationContext,
  texts?: readonly string[],
): NormalizedBatch {
  return eachItem(items, texts, (item, text) => normalizeItem(resource, apiVersion, item, ctx, text));
}

export function isRejectedRow(result: NormalizedSession | RejectedRow): result is RejectedRow {
  return !('row' in result);
}

/** The resource an item says it is (`activity.name`), or null. */
export function resourceOfItem(item: unknown): Resource | null {
  if (!isJsonObject(item)) return null;
  const activity = item['activity'];
  if (!isJsonObject(activity)) return null;
  const name = activity['name'];
  if (name === 'authentication') return 'authentications';
  if (name === 'fingerprint') return 'fingerprints';
  return null;
}

/**
 * Items that may be of either resource, as in a webhook delivery whose filter
 * lets both activity names through: each is normalized as the resource its
 * `activity.name` says. An item that says neither is rejected (resource
 * `sessions`), since no table can hold it. `texts` as for normalizeItems.
 */
export function normalizeMixedItems(
  apiVersion: ApiVersion,
  items: readonly unknown[],
  ctx: ObservationContext,
  texts?: readonly string[],
): NormalizedBatch {
  return eachItem(items, texts, (item, text) => {
    const resource = resourceOfItem(item);
    if (resource !== null) return normalizeItem(resource, apiVersion, item, ctx, text);
    const reason = isJsonObject(item)
      ? ItemShapeError.wrongValue(
          'activity.name',
          '"authentication" or "fingerprint"',
          isJsonObject(item['activity']) ? item['activity']['name'] : undefined,
        ).message
      : `(item): expected an object, got ${jsonTypeOf(item)}`;
    const serviceId =
      isJsonObject(item) && typeof item['service_id'] === 'string' && item['service_id'] !== ''
        ? item['service_id']
        : null;
    return rejectedRow('sessions', reason, text ?? rawText(item), serviceId, ctx.account, ctx.observedAt);
  });
}

/** Each item with its text (when `texts` is given, one per item), its result added to one batch in item order. */
function eachItem(
  items: readonly unknown[],
  texts: readonly string[] | undefined,
  one: (item: unknown, text: string | undefined) => NormalizedSession | RejectedRow,
): NormalizedBatch {
  if (texts !== undefined && texts.length !== items.length)
    throw new Error(`${texts.length} item texts for ${items.length} items`);
  const batch: NormalizedBatch = { sessions: [], rejected: [] };
  for (let i = 0; i < items.length; i++) addTo(batch, one(items[i], texts?.[i]));
  return batch;
}

function addTo(batch: NormalizedBatch, result: NormalizedSession | RejectedRow): void {
  if (isRejectedRow(result)) batch.rejected.push(result);
  else batch.sessions.push(result);
}
