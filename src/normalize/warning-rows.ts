import { isJsonObject } from './field-readers.js';
import type { WarningRow } from './rows.js';

/** The warning the service adds when a fingerprint's parent may not be read (api-spec "Fingerprint session item"). */
export const PARENT_NOT_AUTHORIZED = 'fingerprint_parent_not_authorized';

/**
 * The `session_warnings` rows of one session: the item's own `warnings` (if
 * the service ever sends them) and the warnings of the response it came in.
 *
 * A response-level warning is attributed to a session when:
 * - its code is fingerprint_parent_not_authorized and the session's parent is
 *   hidden (the empty `fingerprint_parent` is what the warning is about; on a
 *   search page every such session gets it);
 * - it names a `service_id` and that is the session's;
 * - otherwise, always: the spec shows no way to tell which session of a page a
 *   warning concerns, and a warning is never silently dropped.
 *
 * Entries without a string `code` are skipped (the code is the row's key).
 * One row per code: the last entry with a code wins.
 */
export function warningRows(
  serviceId: string,
  itemWarnings: unknown,
  responseWarnings: readonly unknown[] | undefined,
  parentHidden: boolean,
  seenAt: string,
): WarningRow[] {
  const rows: WarningRow[] = [];
  if (Array.isArray(itemWarnings)) {
    for (const w of itemWarnings) add(rows, serviceId, w, seenAt);
  }
  if (responseWarnings !== undefined) {
    for (const w of responseWarnings) {
      if (!isJsonObject(w)) continue;
      if (w['code'] === PARENT_NOT_AUTHORIZED) {
        if (parentHidden) add(rows, serviceId, w, seenAt);
      } else if (typeof w['service_id'] === 'string') {
        if (w['service_id'] === serviceId) add(rows, serviceId, w, seenAt);
      } else {
        add(rows, serviceId, w, seenAt);
      }
    }
  }
  return rows;
}

function add(rows: WarningRow[], serviceId: string, warning: unknown, seenAt: string): void {
  if (!isJsonObject(warning)) return;
  const code = warning['code'];
  if (typeof code !== 'string' || code === '') return;
  const message = warning['message'];
  const row: WarningRow = {
    service_id: serviceId,
    code,
    message: typeof message === 'string' ? message : null,
    seen_at: seenAt,
  };
  const existing = rows.findIndex((r) => r.code === code);
  if (existing === -1) rows.push(row);
  else rows[existing] = row;
}
