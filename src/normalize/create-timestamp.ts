import { numberOrNull, objectOrNull, stringOrNull } from './field-readers.js';
import type { JsonObject } from './field-readers.js';
import { isoFromMicros, microsFromIso, toIsoMicros } from './time.js';

/**
 * `create_timestamp` of webhooks and domains: {display, epoch}, null in some
 * v2 objects. The epoch is the exact value; the display text is used when it
 * is the only one given.
 */
export function readCreateTimestamp(obj: JsonObject): { created_at: string | null; created_epoch: number | null } {
  const timestamp = objectOrNull(obj, 'create_timestamp');
  const epoch = numberOrNull(timestamp, 'epoch');
  if (epoch !== null) return { created_at: toIsoMicros(epoch), created_epoch: epoch };
  const display = stringOrNull(timestamp, 'display');
  const micros = display === null ? null : microsFromIso(display);
  if (micros === null) return { created_at: null, created_epoch: null };
  return { created_at: isoFromMicros(micros), created_epoch: micros / 1_000_000 };
}
