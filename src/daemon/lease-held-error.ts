import { FatalError } from '../errors.js';
import type { LeaseState } from '../store/sink.js';

/**
 * Another process holds the lease of an account in this target. Not a fault of
 * this process: the caller may wait (`--wait`) or leave the work to the holder.
 */
export class LeaseHeldError extends FatalError {
  readonly lease: LeaseState;

  constructor(lease: LeaseState) {
    super(
      'LEASE_HELD',
      `${lease.name} is held by ${lease.holder} since ${lease.acquiredAt} (heartbeat ${lease.heartbeatAt}); it ` +
        `is syncing this account into the same target: wait for it, or run again with --wait`,
    );
    this.lease = lease;
  }
}
