import { API_VERSIONS } from '../config/constants.js';
import { normalizeMixedItems } from '../normalize/normalize-item.js';
import type { ApiVersion, NormalizedBatch } from '../normalize/rows.js';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The interface an item of a delivery is shaped by. A webhook delivers in the
 * shape of the interface it was created with, and one account may have
 * webhooks of both, so each item is read by its own timestamp: v1.4 has
 * `timestamp.epoch`, v2 only `timestamp.created_at`.
 */
export function deliveryItemApiVersion(item: unknown): ApiVersion {
  const timestamp = isRecord(item) ? item['timestamp'] : undefined;
  if (isRecord(timestamp) && timestamp['epoch'] === undefined && typeof timestamp['created_at'] === 'string')
    return '2';
  return '1.4';
}

/**
 * The rows of a delivery's items: source `webhook`, each item's own
 * `update_counter` (the normalizer reads it from the item), either resource.
 * A webhook fingerprint item has no `fingerprint_parent`; the normalizer
 * lists the parent columns in `preserve` so the parent a poll stored survives.
 * `texts`, when given, are the items' JSON texts as sent, one per item.
 */
export function normalizeDelivery(
  items: readonly unknown[],
  account: string,
  observedAt: string,
  texts?: readonly string[],
): NormalizedBatch {
  const byVersion: Record<ApiVersion, { items: unknown[]; texts: string[] }> = {
    '1.4': { items: [], texts: [] },
    '2': { items: [], texts: [] },
  };
  items.forEach((item, i) => {
    const part = byVersion[deliveryItemApiVersion(item)];
    part.items.push(item);
    if (texts !== undefined) part.texts.push(texts[i]!);
  });
  const batch: NormalizedBatch = { sessions: [], rejected: [] };
  for (const version of API_VERSIONS) {
    const { items: versionItems, texts: versionTexts } = byVersion[version];
    if (versionItems.length === 0) continue;
    const part = normalizeMixedItems(
      version,
      versionItems,
      { account, source: 'webhook', observedAt },
      texts === undefined ? undefined : versionTexts,
    );
    batch.sessions.push(...part.sessions);
    batch.rejected.push(...part.rejected);
  }
  return batch;
}
