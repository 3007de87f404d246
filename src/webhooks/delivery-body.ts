import { createHash } from 'node:crypto';
import { itemTexts } from '../api/element-texts.js';

/** The parts of a verified delivery body the receiver uses (api-spec "Events", Delivery 2). */
export interface DeliveryBody {
  webhookUuid: string | null;
  channel: string | null;
  items: readonly unknown[];
  /** Each item's JSON text as sent, when the body could be sliced (api/element-texts.ts). */
  itemTexts?: readonly string[];
}

export type DeliveryParse = { ok: true; body: DeliveryBody } | { ok: false; reason: string };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Parses a delivery body whose signature has been verified. The body has the
 * shape of a search answer plus `channel` and `webhook_uuid`; keys the
 * service adds later are ignored here and kept in the stored body.
 */
export function parseDeliveryBody(text: string): DeliveryParse {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'the body is not valid JSON' };
  }
  if (!isRecord(parsed)) return { ok: false, reason: 'the body is not a JSON object' };
  const { items, webhook_uuid: uuid, channel } = parsed;
  if (!Array.isArray(items)) return { ok: false, reason: 'the body has no items array' };
  if (uuid !== undefined && uuid !== null && typeof uuid !== 'string')
    return { ok: false, reason: 'webhook_uuid is not a string' };
  if (channel !== undefined && channel !== null && typeof channel !== 'string')
    return { ok: false, reason: 'channel is not a string' };
  const texts = itemTexts(text, 'items', items.length);
  return {
    ok: true,
    body: {
      webhookUuid: uuid ?? null,
      channel: channel ?? null,
      items,
      ...(texts === undefined ? {} : { itemTexts: texts }),
    },
  };
}

/** Inbox id: a retry of the same delivery (same webhook, same bytes) is the same row. */
export function deliveryId(webhookUuid: string | null, rawBody: Buffer): string {
  return createHash('sha256')
    .update(webhookUuid ?? '')
    .update('\0')
    .update(rawBody)
    .digest('hex');
}
