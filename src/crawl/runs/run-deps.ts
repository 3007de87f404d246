import { UserError } from '../../errors.js';
import type { CatalogClient } from './catalog-refresh.js';
import type { CrawlAccount, CrawlClient, CrawlContext, CrawlDeps } from '../engine/crawl-deps.js';
import type { RecordRunDeps, RunLeases, RunScope } from './run-recorder.js';

/** One account a process can run for: its name and its client (bound to its token and bucket). */
export interface RunAccount extends CrawlAccount {
  client: CrawlClient & CatalogClient;
}

/**
 * What a run needs from the process that starts it: the CLI builds these for
 * one command, the daemon once for all its runs (one target connection, one
 * client and bucket per account, one commit queue, its leases and metrics).
 * The rest of what the crawl depends on is declared once, in CrawlDeps.
 */
export interface RunDeps extends CrawlDeps {
  /** Every account the process serves; a run picks its own by name. */
  accounts: readonly RunAccount[];
  leases: RunLeases;
  /**
   * Most sessions the target may hold (a DuckDB target's store.duckdbMaxSessions): a backfill whose first pages
   * estimate more fails early. Undefined: no limit.
   */
  maxSessions?: number | undefined;
}

/** The accounts of `deps` that `names` name, in that order. */
export function pickAccounts(deps: Pick<RunDeps, 'accounts'>, names: readonly string[]): RunAccount[] {
  return names.map((name) => {
    const found = deps.accounts.find((a) => a.name === name);
    if (!found)
      throw new UserError(
        'UNKNOWN_ACCOUNT',
        `account '${name}' is not one this process serves (known: ${deps.accounts.map((a) => a.name).join(', ')})`,
      );
    return found;
  });
}

/** What the crawl of one run works with: the process's deps, the run's signal and tally, the run's accounts. */
export function runContext(deps: RunDeps, run: RunScope, accounts: readonly string[]): CrawlContext {
  return { ...deps, accounts: pickAccounts(deps, accounts), signal: run.signal, tally: run.tally, runId: run.id };
}

export function recorderDeps(deps: RunDeps): RecordRunDeps {
  return { runs: deps.sink, leases: deps.leases, clock: deps.clock, signal: deps.signal };
}
