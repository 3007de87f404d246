/** Why a delivered session is worth a targeted GET, or null when the delivery says all there is. */
export type RefreshReason = 'unknown' | 'gap' | null;

/**
 * Decides, per delivered item, whether to ask the service for the session
 * after answering the delivery.
 *
 * - `unknown`: the target has no row for it. A webhook item lacks what only a
 *   GET shows (a fingerprint's parent), and an unknown session is often one
 *   whose earlier deliveries were lost.
 * - `gap`: the counter jumped (more than one above the stored one): deliveries
 *   in between are missing or still on their way, and deliveries are not
 *   ordered, so the present state is fetched rather than waited for.
 *
 * A stored row without a counter (only polled so far) is known and has no
 * gap to speak of; an item without a counter cannot show a gap.
 *
 * @param stored undefined: no row; null: a row without a counter.
 */
export function refreshReason(stored: number | null | undefined, incoming: number | null): RefreshReason {
  if (stored === undefined) return 'unknown';
  if (stored === null || incoming === null) return null;
  return incoming > stored + 1 ? 'gap' : null;
}
