import { rejectedRow } from '../../normalize/rejected-row.js';
import type { NormalizedBatch, NormalizedSession, RejectedRow } from '../../normalize/rows.js';
import { isNewer } from './merge-rule.js';

/** The reason the losing copy of a session that a page holds twice is kept aside with. */
export const DUPLICATE_ON_PAGE =
  'duplicate: the same page holds another copy of this service_id, which is newer ' +
  '(a higher update_counter, or else later on the page) and was stored instead';

/**
 * One copy per session of a page: when a page holds one service_id twice,
 * newer never loses (merge-rule.ts: the higher update_counter, or, when they
 * cannot be compared by counter, the later observation, which on one page
 * is the later copy), and each losing copy goes to `rejected_items` as a
 * duplicate, so that nothing the service sent is silently dropped. Returns
 * the same batch when no id repeats.
 */
export function keepNewestCopies(batch: NormalizedBatch): NormalizedBatch {
  if (batch.sessions.length < 2) return batch;
  const winners = new Map<string, NormalizedSession>();
  const losers = new Set<NormalizedSession>();
  for (const session of batch.sessions) {
    const key = `${session.resource}\u0000${session.row.service_id}`;
    const current = winners.get(key);
    if (current === undefined) {
      winners.set(key, session);
    } else if (isNewer(current.row, session.row)) {
      losers.add(current);
      winners.set(key, session);
    } else {
      losers.add(session);
    }
  }
  if (losers.size === 0) return batch;
  const rejected: RejectedRow[] = [...batch.rejected];
  for (const s of batch.sessions) {
    if (!losers.has(s)) continue;
    const { raw, service_id, account, last_synced_at } = s.row;
    rejected.push(rejectedRow(s.resource, DUPLICATE_ON_PAGE, raw, service_id, account, last_synced_at));
  }
  return { sessions: batch.sessions.filter((s) => !losers.has(s)), rejected };
}
