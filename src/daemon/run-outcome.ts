import { InterruptedError } from '../errors.js';
import { LeaseHeldError } from './lease-held-error.js';
import { LeaseLostError } from './lease-lost-error.js';

export type RunOutcome =
  | { status: 'succeeded' }
  /** Left to the lease's holder; `lost` when it took the lease over from this process mid-run. */
  | { status: 'held'; holder: string; lost?: true }
  | { status: 'interrupted' }
  | { status: 'failed'; error: string; runId?: string | undefined };

/** How a run the daemon started ended (a SyncReport or BackfillReport has this shape). */
export interface RunEnding {
  status: 'succeeded' | 'failed' | 'interrupted';
  error: Error | null;
  /** Its id in `sync_runs`, put on the daemon's record of its failure. */
  runId?: string | undefined;
}

/**
 * Classifies how a run ended. A lease held by another process is not a
 * failure, nor is one another process took over mid-run (the account is
 * theirs now): neither counts towards the crash-loop backoff.
 */
export function outcomeOf(error: unknown): RunOutcome {
  if (error === undefined || error === null) return { status: 'succeeded' };
  if (error instanceof LeaseHeldError) return { status: 'held', holder: error.lease.holder };
  if (error instanceof LeaseLostError) return { status: 'held', holder: error.holder, lost: true };
  if (error instanceof InterruptedError) return { status: 'interrupted' };
  return { status: 'failed', error: error instanceof Error ? error.message : String(error) };
}

/** How a run ended, whether it reported its end or could not start at all. */
export function settle(run: Promise<RunEnding>): Promise<RunOutcome> {
  return run.then(
    (ending) => {
      if (ending.status === 'succeeded') return { status: 'succeeded' };
      const outcome = outcomeOf(ending.error ?? new Error(`run ${ending.status}`));
      return outcome.status === 'failed' ? { ...outcome, runId: ending.runId } : outcome;
    },
    (error: unknown) => outcomeOf(error),
  );
}
