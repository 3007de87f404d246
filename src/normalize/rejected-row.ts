import { createHash } from 'node:crypto';
import type { RejectedRow } from './rows.js';
import { storableRaw, storableText } from './storable-text.js';
import { boundedJsonText, MAX_KEY_BYTES } from './stored-bounds.js';

/**
 * A `rejected_items` row. The id hashes resource, reason and raw text, so the
 * same bad item seen on every pass stays one row (its seen_at moves on). Its
 * text is stored as every row's is (see storable-text.ts): a reason names
 * JSON paths, and an id or a key may hold a character no target can store.
 * Past the bounds every target holds (stored-bounds.ts), the row still
 * stores: a service_id longer than MAX_KEY_BYTES is left out (the column is
 * indexed; `raw` holds it), and an item nested too deep for a `json` column
 * is kept as one JSON string holding its text.
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
  const bounded = boundedJsonText(raw);
  const storedRaw = bounded === raw ? storableRaw(raw) : bounded;
  const id = createHash('sha256').update(`${resource}\n${storedReason}\n${storedRaw}`).digest('hex');
  const indexable = serviceId !== null && Buffer.byteLength(serviceId, 'utf8') <= MAX_KEY_BYTES;
  const storedId = indexable ? storableText(serviceId) : null;
  return { id, resource, service_id: storedId, reason: storedReason, raw: storedRaw, seen_at: seenAt, account };
}

/** The item's JSON text as received; `raw` columns are never null. */
export function rawText(item: unknown): string {
  try {
    return JSON.stringify(item) ?? 'null';
  } catch {
    // Values that did not come from JSON.parse (cycles, BigInt), and values
    // nested too deep for JSON.stringify's recursion, which String() shares.
    try {
      return JSON.stringify(String(item));
    } catch {
      return JSON.stringify('(not serializable)');
    }
  }
}
