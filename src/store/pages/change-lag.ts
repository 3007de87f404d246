import type { NormalizedSession } from '../../normalize/rows.js';
import { microsFromIso } from '../../normalize/time.js';
import type { SessionOutcome } from './merge-plan.js';

/** A change the target stored, with when the service made it: a row of change_lags. */
export interface ObservedChange {
  changedAt: string;
  storedAt: string;
  lagSeconds: number;
}

/**
 * The change an observation stored and its observed lag, or null when it
 * stored none the service dated. Only a stored session that changed counts
 * (a new one is no change to the copy). The change time is v2's
 * last_updated_at; a delivery without one arrived when the service made the
 * change, so its arrival (the observation time) dates it. An observation
 * with the stored last_updated_at (a GET after the delivery of the same
 * change) repeats a change already counted. The lag is never negative: a
 * service clock ahead of ivsync's is no freshness.
 */
export function observedChange(
  outcome: SessionOutcome,
  session: NormalizedSession,
  storedUpdatedAt: string | null | undefined,
): ObservedChange | null {
  if (outcome !== 'changed') return null;
  const { last_updated_at: updatedAt, last_synced_at: storedAt, source } = session.row;
  if (updatedAt !== null && updatedAt === storedUpdatedAt) return null;
  const changedAt = updatedAt ?? (source === 'webhook' ? storedAt : null);
  if (changedAt === null) return null;
  const changed = microsFromIso(changedAt);
  const stored = microsFromIso(storedAt);
  if (changed === null || stored === null) return null;
  return { changedAt, storedAt, lagSeconds: Math.max(0, (stored - changed) / 1e6) };
}
