import { createHash } from 'node:crypto';
import type { RejectedRow } from './rows.js';
import { storableRaw, storableText } from './storable-text.js';

/**
 * A `rejected_items` row. The id hashes resource, reason and raw text, so the
 * same bad item seen on every pass stays one row (its seen_at moves on). Its
 * text is stored as every row's is (see storable-text.ts): a reason names
 * JSON paths, and an id or a key may hold a character no target can store.
 */
export function rejectedRow(
  resource: string,
  reason: string,
  raw: string,
  serviceId: string | null,
  account: string | null,
  seenAt: string,
): RejectedRow {
  const storedReason = storableText(reason);
  const storedRaw = storableRaw(raw);
  const id = createHash('sha256').update(`${resource}\n${storedReason}\n${storedRaw}`).digest('hex');
  const storedId = serviceId === null ? null : storableText(serviceId);
  return { id, resource, service_id: storedId, reason: storedReason, raw: storedRaw, seen_at: seenAt, account };
}

/** The item's JSON text as received; `raw` columns are never null. */
export function rawText(item: unknown): string {
  try {
    return JSON.stringify(item) ?? 'null';
  } catch {
    // Only values that did not come from JSON.parse get here (cycles, BigInt).
    return JSON.stringify(String(item));
  }
}
