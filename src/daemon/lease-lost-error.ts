import { FatalError } from '../errors.js';

/**
 * Another process took over a lease this one held: this one missed its
 * heartbeats for longer than the ttl (it was stopped, starved or cut off from
 * the target). The run stops after committing its pages in flight and leaves
 * the account to the new holder; rows stay right either way (newer wins), so
 * nothing is lost, only work that would be done twice is saved.
 */
export class LeaseLostError extends FatalError {
  readonly lease: string;
  readonly holder: string;

  constructor(lease: string, holder: string) {
    super(
      'LEASE_LOST',
      `${lease} was taken over by ${holder}: this process missed its heartbeats for longer than the lease ttl ` +
        `(stopped, starved or cut off from the target); it stopped after committing its pages in flight and ` +
        `leaves the account to that process`,
    );
    this.lease = lease;
    this.holder = holder;
  }
}
