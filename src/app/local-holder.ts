import { hostname } from 'node:os';
import { deadOnThisHost } from '../store/leases/lease-names.js';

/** Signal 0 checks that a process exists without touching it; EPERM means it exists under another user. */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The process-bound probe for LeaseKeeper's `holderIsDead`. */
export function localHolderIsDead(): (holder: string) => boolean {
  return deadOnThisHost(hostname(), process.pid, pidAlive);
}
