import type { GlobalOption } from '../command.js';

/** How every command reports: errors, logs and the config file the rest comes from. */
const OUTPUT: readonly GlobalOption[] = ['config', 'json', 'log-level', 'verbose'];

/**
 * The global options each kind of command reads, so that its --help lists
 * only those: a command that never calls the service has no --token to offer.
 */
export const USES = {
  /** Calls the service and writes the target. */
  crawl: ['base-url', 'token', 'api-version', 'rate', 'account', 'db', ...OUTPUT],
  /** Calls the service, writes nothing. */
  service: ['base-url', 'token', 'api-version', 'rate', 'account', ...OUTPUT],
  /** Reads or changes the target of the accounts, no request. */
  accounts: ['account', 'db', ...OUTPUT],
  /** The target alone. */
  target: ['db', ...OUTPUT],
} as const satisfies Record<string, readonly GlobalOption[]>;
