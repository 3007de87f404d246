import type { LeaseLogger } from '../daemon/lease-keeper.js';
import type { StoreLogger } from '../store/open-sink.js';

/**
 * The part of a logger the composition root hands on (pino's shape): the
 * clients log each request at debug, the store its migrations and retries,
 * the leases their waits and take-overs.
 */
export interface AppLogger extends LeaseLogger, StoreLogger {
  debug(fields: Record<string, unknown>, message: string): void;
}
