import type { RequestEvent } from '../api/service-client.js';
import type { AccountConfig, Config } from '../config/config.js';
import type { CrawlEvent } from '../crawl/engine/crawl-deps.js';
import type { RunDeps } from '../crawl/runs/run-deps.js';
import type { LeaseKeeper } from '../daemon/lease-keeper.js';
import type { QueryableSink } from '../store/sql-sink.js';
import type { AppLogger } from './app-logger.js';
import { bindAccounts, closeAccounts, type BoundAccount } from './bind-accounts.js';
import { leaseKeeper } from './lease-keeper-for.js';
import { openTarget } from './open-target.js';
import { runDeps } from './run-deps-for.js';

export interface OpenAppOptions {
  /** The accounts to bind a client and a bucket to. */
  accounts: readonly AccountConfig[];
  logger: AppLogger;
  /** The run's or the daemon's id: this process's leases are held under it. */
  id: string;
  /** Seconds without a heartbeat after which another process may take this one's leases. */
  leaseTtlSeconds: number;
  /** Milliseconds since the epoch. */
  clock: () => number;
  /** Aborted when the process stops: runs commit their pages in flight and end interrupted. */
  signal: AbortSignal;
  /** Every request of every account, for metrics. */
  onRequest?: ((account: string, event: RequestEvent) => void) | undefined;
  /** Progress of the crawls: logs and metrics. */
  onEvent?: ((event: CrawlEvent) => void) | undefined;
  /** Open only a target that is there already. @default false */
  existing?: boolean | undefined;
  /** Wait (until `signal` aborts) for a DuckDB file another process has open. @default fail at once */
  wait?: boolean | undefined;
}

/** What a process runs on: its target, its accounts' clients and buckets, its leases, and the runs' dependencies. */
export interface App {
  /** The target; it also answers read-only SQL (the status page reads its tables). */
  readonly sink: QueryableSink;
  readonly accounts: readonly BoundAccount[];
  readonly leases: LeaseKeeper;
  readonly deps: RunDeps;
  /** Gives back the leases, closes the target, then the clients, whatever fails. */
  close(): Promise<void>;
}

/**
 * The composition root, one for the CLI's commands, the daemon and the
 * library: binds the accounts first (so a missing token costs nothing and
 * touches no target), opens the target, takes this process's lease keeper and
 * builds the runs' dependencies. If opening fails, the clients are closed.
 */
export async function openApp(config: Config, options: OpenAppOptions): Promise<App> {
  const bound = bindAccounts(config, options.accounts, options.logger, options.onRequest);
  try {
    const { logger, signal } = options;
    const sink = await openTarget(config, {
      existing: options.existing ?? false,
      logger,
      // A run stopped while the target is down stops at once instead of retrying out the budget.
      signal,
      ...(options.wait === true ? { wait: { signal, logger } } : {}),
    });
    const keeper = leaseKeeper(sink, options, logger, options.id, options.leaseTtlSeconds);
    const deps = runDeps(config, options, { sink, bound, leases: keeper, onEvent: options.onEvent });
    return {
      sink,
      accounts: bound,
      leases: keeper,
      deps,
      close: async () => {
        try {
          await keeper.close();
          await sink.close();
        } finally {
          closeAccounts(bound);
        }
      },
    };
  } catch (error) {
    closeAccounts(bound);
    throw error;
  }
}
