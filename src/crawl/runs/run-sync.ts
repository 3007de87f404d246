import type { ResourceName } from '../../config/config.js';
import { InterruptedError, RetriableError } from '../../errors.js';
import { refreshCatalog, type CatalogRefreshOutcome } from './catalog-refresh.js';
import { pickAccounts, recorderDeps, runContext, type RunDeps } from './run-deps.js';
import { watchCeiling, type CeilingWatch } from './session-ceiling.js';
import { recordRun, type RunRecord } from './run-recorder.js';
import { refreshSpend } from '../refresh/refresh-spend.js';
import { PRIORITY } from '../../config/constants.js';
import { sync, type SyncOutcome } from './sync.js';

export interface SyncRunOptions {
  /** The accounts to sync, by name (every one must be in `deps.accounts`). */
  accounts: readonly string[];
  resources: readonly ResourceName[];
  /** Where to start when the target holds no checkpoint yet (epoch seconds). */
  since?: number | undefined;
  /** Wait for an account another process syncs now instead of failing. */
  wait: boolean;
  /** The run's id. @default a new one */
  runId?: string | undefined;
}

export interface SyncReport extends RunRecord {
  /** One per account and resource. */
  outcomes: SyncOutcome[];
  /** One per v2 account: the catalog tables refreshed after its sessions. */
  catalogs: CatalogRefreshOutcome[];
}

/**
 * One incremental sync, recorded in `sync_runs` under the leases of its
 * accounts: new pages from the high-water mark minus the overlap, the
 * refresh of non-final sessions, the sealing of windows that can no longer
 * change, and for v2 accounts the catalog tables. The catalog runs after the
 * sessions, so its outage (the service answers 503 while catalog data is
 * unavailable) never holds back or fails the session sync; failed windows
 * fail the run (the next sync retries them); a signal interrupts it after the
 * pages in flight committed.
 */
export function runSync(deps: RunDeps, options: SyncRunOptions): Promise<SyncReport> {
  const account = options.accounts.length === 1 ? options.accounts[0]! : null;
  const spec = {
    command: 'sync' as const,
    runId: options.runId,
    account,
    accounts: options.accounts,
    wait: options.wait,
  };
  return recordRun(recorderDeps(deps), spec, { outcomes: [], catalogs: [] }, async (run) => {
    let outcomes: SyncOutcome[];
    let watch: CeilingWatch;
    try {
      // The first sync of an empty target pages the whole history from `since`, as a backfill does.
      watch = await watchCeiling(runContext(deps, run, options.accounts), deps.maxSessions, options.resources);
      outcomes = await sync(watch.ctx, { resources: options.resources, since: options.since });
    } finally {
      deps.claims?.release(run.id);
    }
    const itemsWritten = outcomes.reduce((n, o) => n + o.incremental.written, 0);
    const refresh = refreshSpend(outcomes);
    const tooLarge = watch.exceeded();
    if (tooLarge !== undefined) {
      return { details: { outcomes, catalogs: [] }, status: 'failed', error: tooLarge, itemsWritten, refresh };
    }
    if (outcomes.some((o) => o.incremental.interrupted) || run.signal.aborted) {
      const error = new InterruptedError(
        'sync interrupted after committing the pages in flight; the next sync continues from there',
      );
      return { details: { outcomes, catalogs: [] }, status: 'interrupted', error, itemsWritten, refresh };
    }
    const catalogs: CatalogRefreshOutcome[] = [];
    for (const a of pickAccounts(deps, options.accounts).filter((a) => a.client.apiVersion === '2')) {
      catalogs.push(
        await refreshCatalog({
          account: a.name,
          client: a.client,
          sink: deps.sink,
          clock: deps.clock,
          call: { priority: PRIORITY.refresh, tally: run.tally },
        }),
      );
    }
    const failed = outcomes.flatMap((o) => o.incremental.failed);
    if (failed.length > 0) {
      const error = new RetriableError(
        'WINDOWS_FAILED',
        `${failed.length} window(s) failed (first: ${failed[0]!.error}); the next sync retries them`,
      );
      return { details: { outcomes, catalogs }, status: 'failed', error, itemsWritten, refresh };
    }
    return { details: { outcomes, catalogs }, status: 'succeeded', error: null, itemsWritten, refresh };
  });
}
