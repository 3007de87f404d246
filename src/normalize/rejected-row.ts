import { createHash } from 'node:crypto';
import type { RejectedRow } from './rows.js';

/**
 * A `rejected_items` row. The id hashes resource, reason and raw text, so the
 * same bad item seen on every pass stays one row (its seen_at moves on).
 */
export function rejectedRow(
  resource: string,
  reason: string,
  raw: string,
  serviceId: string | null,
  account: string | null,
  seenAt: string,
): RejectedRow {
  const id = createHash('sha256').update(`${resource}\n${reason}\n${raw}`).digest('hex');
  return { id, resource, service_id: serviceId, reason, raw, seen_at: seenAt, account };
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
