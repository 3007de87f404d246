import { hostname } from 'node:os';
import { deadOnThisHost } from '../store/leases/lease-names.js';
import { pidAlive } from '../store/pid-alive.js';

/** The process-bound probe for LeaseKeeper's `holderIsDead`. */
export function localHolderIsDead(): (holder: string) => boolean {
  return deadOnThisHost(hostname(), process.pid, pidAlive);
}
