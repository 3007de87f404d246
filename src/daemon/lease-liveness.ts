import type { LeaseState } from '../store/sink.js';
import { DAEMON_LEASE_PREFIX, daemonLease } from '../store/leases/lease-names.js';

/** A lease as `status` shows it: whether a live process stands behind it. */
export interface LeaseView extends LeaseState {
  /** Its holder is gone (dead on this host, or silent past the ttl): the next taker takes it over. */
  stale: boolean;
}

const TICK_PREFIX = 'tick:';

/**
 * Which leases a live process holds. A holder known dead on this host is
 * stale at once; a heartbeat older than `ttlSeconds` is stale. A `tick:`
 * claim carries no heartbeat (it is stamped with its tick's time): it is
 * live exactly while the daemon that claimed it is.
 */
export function leaseLiveness(
  leases: readonly LeaseState[],
  nowEpoch: number,
  ttlSeconds: number,
  holderIsDead: (holder: string) => boolean,
): LeaseView[] {
  const fresh = (l: LeaseState) => !holderIsDead(l.holder) && nowEpoch - Date.parse(l.heartbeatAt) / 1000 <= ttlSeconds;
  const daemons = leases.filter((l) => l.name.startsWith(DAEMON_LEASE_PREFIX) && fresh(l));
  const liveDaemons = new Set(daemons.map((l) => l.name));
  return leases.map((l) => ({
    ...l,
    stale: l.name.startsWith(TICK_PREFIX) ? !liveDaemons.has(daemonLease(l.holder)) : !fresh(l),
  }));
}
