import type { ResourceName } from '../../config/config.js';
import { InterruptedError, RetriableError } from '../../errors.js';
import { backfill } from './backfill.js';
import type { CrawlOutcome } from '../engine/crawler.js';
import type { RunDeps } from './run-deps.js';
import { recorderDeps, runContext } from './run-context.js';
import { recordRun, type RunRecord } from './run-recorder.js';

export interface BackfillRunOptions {
  accounts: readonly string[];
  /** Epoch seconds; the interval [from, to] is closed and rounded out to whole windows. */
  from: number;
  to: number;
  resources: readonly ResourceName[];
  /** Priority of the backfill's requests in the bucket (a daemon's background backfill runs low). @default 0 */
  priority?: number;
  wait: boolean;
  /** @default a new one */
  runId?: string | undefined;
}

export interface BackfillReport extends RunRecord {
  /** Items paged (sessions and rejected items). */
  items: number;
  pages: number;
  failedWindows: CrawlOutcome['failed'];
}

/**
 * A historical backfill, recorded in `sync_runs` under the leases of its
 * accounts. Re-running the same backfill after a crash or a signal continues
 * every window from its checkpoint. Failed windows fail the run; running it
 * again retries them.
 */
export function runBackfill(deps: RunDeps, options: BackfillRunOptions): Promise<BackfillReport> {
  const account = options.accounts.length === 1 ? options.accounts[0]! : null;
  const spec = { command: 'backfill' as const, runId: options.runId, account, accounts: options.accounts, wait: options.wait };
  const empty = { items: 0, pages: 0, failedWindows: [] };
  return recordRun(recorderDeps(deps), spec, empty, async (run) => {
    const ctx = runContext(deps, run, options.accounts);
    let outcomes: CrawlOutcome[];
    try {
      const { from, to, resources, priority } = options;
      outcomes = await backfill(ctx, { from, to, resources, priority });
    } finally {
      deps.claims?.release(run.id);
    }
    const details = {
      items: outcomes.reduce((n, o) => n + o.items, 0),
      pages: outcomes.reduce((n, o) => n + o.pages, 0),
      failedWindows: outcomes.flatMap((o) => o.failed),
    };
    const itemsWritten = outcomes.reduce((n, o) => n + o.written, 0);
    if (outcomes.some((o) => o.interrupted) || run.signal.aborted) {
      const error = new InterruptedError('backfill interrupted after committing the pages in flight; run the same command again to resume');
      return { details, status: 'interrupted', error, itemsWritten };
    }
    if (details.failedWindows.length > 0) {
      const error = new RetriableError(
        'WINDOWS_FAILED',
        `${details.failedWindows.length} window(s) failed (first: ${details.failedWindows[0]!.error}); run the same command again to retry them`,
      );
      return { details, status: 'failed', error, itemsWritten };
    }
    return { details, status: 'succeeded', error: null, itemsWritten };
  });
}
