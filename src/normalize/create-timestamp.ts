import { numberOrNull, objectOrNull, stringOrNull } from './field-readers.js';
import type { JsonObject } from './field-readers.js';
import { isoFromMicros, isStorableIso, microsFromIso, storableIsoFromEpoch } from './time.js';

/**
 * `create_timestamp` of webhooks and domains: {display, epoch}, null in some
 * v2 objects. The epoch is the exact value; the display text is used when it
 * is the only one given (or the epoch is outside the years a target stores).
 */
export function readCreateTimestamp(obj: JsonObject): { created_at: string | null; created_epoch: number | null } {
  const timestamp = objectOrNull(obj, 'create_timestamp');
  const epoch = numberOrNull(timestamp, 'epoch');
  const fromEpoch = epoch === null ? null : storableIsoFromEpoch(epoch);
  if (epoch !== null && fromEpoch !== null) return { created_at: fromEpoch, created_epoch: epoch };
  const display = stringOrNull(timestamp, 'display');
  const micros = display === null ? null : microsFromIso(display);
  const fromDisplay = micros === null ? null : isoFromMicros(micros);
  if (micros === null || fromDisplay === null || !isStorableIso(fromDisplay))
    return { created_at: null, created_epoch: null };
  return { created_at: fromDisplay, created_epoch: micros / 1_000_000 };
}
