import { hostname } from 'node:os';
import { LeaseKeeper, type LeaseLogger } from '../daemon/lease-keeper.js';
import { holderId } from '../store/leases/lease-names.js';
import type { Sink } from '../store/sink.js';
import { localHolderIsDead } from './local-holder.js';

/** The leases of this process: its holder id names the host, the pid and the run (or daemon) id. */
export function leaseKeeper(
  sink: Sink,
  io: { clock: () => number },
  logger: LeaseLogger,
  id: string,
  ttlSeconds: number,
): LeaseKeeper {
  const holder = holderId(hostname(), process.pid, id);
  return new LeaseKeeper({ sink, holder, ttlSeconds, clock: io.clock, logger, holderIsDead: localHolderIsDead() });
}
