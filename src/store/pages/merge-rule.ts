/**
 * "Newer never loses to older" (design.md): an observation replaces the stored
 * row only when it has a higher update_counter or, when they cannot be
 * compared by counter, a later observation time. v2's last_updated_at counts
 * as the observation time when present.
 */
export interface Observation {
  update_counter: number | null;
  last_updated_at: string | null;
  last_synced_at: string;
}

export function observedAt(o: Observation): string {
  return o.last_updated_at ?? o.last_synced_at;
}

export function isNewer(stored: Observation, incoming: Observation): boolean {
  if (stored.update_counter !== null && incoming.update_counter !== null) {
    return incoming.update_counter > stored.update_counter;
  }
  // Equal times replace too: a replay of the same observation is a no-op either way.
  return observedAt(incoming) >= observedAt(stored);
}

/** The counter a replaced row keeps: the highest seen, so a delayed old delivery stays stale. */
export function mergedCounter(stored: number | null, incoming: number | null): number | null {
  if (stored === null) return incoming;
  if (incoming === null) return stored;
  return Math.max(stored, incoming);
}
