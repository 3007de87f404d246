import type { Argv } from 'yargs';
import { InputError } from '../../errors.js';
import type { GlobalArgs } from '../command.js';

export interface LeaseArgs {
  wait?: boolean;
  'lease-ttl'?: number;
}

/** Seconds without a heartbeat after which an account's lease counts as abandoned. */
export const DEFAULT_LEASE_TTL_SECONDS = 60;

/** `--wait` and `--lease-ttl`, for every command that crawls. */
export function withLeaseOptions(yargs: Argv<GlobalArgs>): Argv<GlobalArgs> {
  return yargs
    .option('wait', {
      type: 'boolean',
      describe:
        'when another process syncs the account into this target, or has its DuckDB file open, wait for it ' +
        'instead of exiting',
    })
    .option('lease-ttl', {
      type: 'number',
      describe:
        `seconds without a heartbeat after which an account lease is taken over (default ` +
        `${DEFAULT_LEASE_TTL_SECONDS})`,
    });
}

export function leaseTtl(args: LeaseArgs): number {
  const ttl = args['lease-ttl'] ?? DEFAULT_LEASE_TTL_SECONDS;
  if (!(ttl >= 1))
    throw new InputError('BAD_LEASE_TTL', `must be at least 1 second, got ${ttl}`, {
      source: { kind: 'flag', name: '--lease-ttl' },
      value: ttl,
    });
  return ttl;
}
