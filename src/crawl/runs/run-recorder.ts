import { randomUUID } from 'node:crypto';
import type { RequestTally } from '../../api/service-client.js';
import { InterruptedError } from '../../errors.js';
import { toIsoMicros } from '../../normalize/time.js';
import { accountLease } from '../../store/leases/lease-names.js';
import type { RefreshSpend, RunLog } from '../../store/sink.js';

export type RunCommand = 'sync' | 'backfill';
export type RunStatus = 'succeeded' | 'failed' | 'interrupted';

/**
 * The leases of this process in the target (daemon/lease-keeper.ts): a run
 * holds the lease of every account it works on, so one process at a time
 * syncs an account into a target.
 */
export interface RunLeases {
  /** Who this process is in `sync_leases` (`host:pid:id`). */
  readonly holder: string;
  /** Takes every lease in `names` or none; throws LeaseHeldError, or waits with `wait`. Returns the release. */
  hold(names: readonly string[], options: { wait: boolean; signal: AbortSignal }): Promise<() => Promise<void>>;
  /** Aborted, with a LeaseLostError as reason, when another process takes over one of the held `names`. */
  lossSignal(names: readonly string[]): AbortSignal;
}

/** How a run ended, as `sync_runs` records it; a report of each command extends it. */
export interface RunRecord {
  runId: string;
  command: RunCommand;
  /** The one account the run was limited to, or null for all. */
  account: string | null;
  startedAt: string;
  finishedAt: string;
  status: RunStatus;
  /** The error that made the run fail or stop; null when it succeeded. */
  error: Error | null;
  /** Attempts the run itself sent (each took a token). */
  requests: number;
  /** Sessions the run inserted or changed. */
  itemsWritten: number;
}

/** What the body of a run hands back: its own figures and how it ended. */
export interface RunBodyResult<D> {
  details: D;
  status: RunStatus;
  error: Error | null;
  itemsWritten: number;
  /** The refresh budget of the run and what it spent, for `sync_runs`; absent for a run without a refresh. */
  refresh?: RefreshSpend | undefined;
}

/** What the body of a run gets: its id, its signal (the process's, and the loss of any of its leases) and its tally. */
export interface RunScope {
  id: string;
  signal: AbortSignal;
  tally: RequestTally;
}

export interface RecordRunDeps {
  runs: RunLog;
  leases: RunLeases;
  clock: () => number;
  signal: AbortSignal;
}

export interface RunSpec {
  command: RunCommand;
  /** The run's id (the CLI puts it on every log line). @default a new one */
  runId?: string | undefined;
  account: string | null;
  /** The accounts whose leases the run holds. */
  accounts: readonly string[];
  /** Wait for a lease another process holds instead of failing with LeaseHeldError. */
  wait: boolean;
}

export function newRunId(): string {
  return randomUUID().slice(0, 8);
}

/**
 * One run in `sync_runs`, under the leases of its accounts: takes the leases
 * (a refused lease records no run: nothing ran), records the start, runs the
 * body, records how it ended, and gives the leases back whatever happens. A
 * body that throws ends the run failed (or interrupted) with that error and
 * `empty` details. A lease lost during the run (another process took it
 * over) stops the body like a signal, and the run fails with the
 * LeaseLostError: the cause, not the interruption it caused.
 */
export async function recordRun<D>(
  deps: RecordRunDeps,
  spec: RunSpec,
  empty: D,
  body: (run: RunScope) => Promise<RunBodyResult<D>>,
): Promise<RunRecord & D> {
  const id = spec.runId ?? newRunId();
  const now = () => toIsoMicros(deps.clock() / 1000);
  return holdAccounts(deps, spec, async (lost) => {
    const scope: RunScope = { id, signal: AbortSignal.any([deps.signal, lost]), tally: { requests: 0 } };
    const startedAt = now();
    await deps.runs.startRun({
      id,
      command: spec.command,
      startedAt,
      account: spec.account,
      holder: deps.leases.holder,
    });
    let result: RunBodyResult<D>;
    try {
      result = await body(scope);
    } catch (error) {
      const thrown = error instanceof Error ? error : new Error(String(error));
      result = {
        details: empty,
        status: thrown instanceof InterruptedError ? 'interrupted' : 'failed',
        error: thrown,
        itemsWritten: 0,
      };
    }
    if (lost.aborted) result = { ...result, status: 'failed', error: lost.reason as Error };
    const finishedAt = now();
    const error = result.error?.message ?? null;
    const { status, itemsWritten, refresh } = result;
    const { requests, throttled, retryWaitMs } = scope.tally;
    await deps.runs.finishRun(id, {
      finishedAt,
      status,
      requests,
      itemsWritten,
      error,
      refresh,
      throttled,
      retryWaitMs,
    });
    return {
      ...result.details,
      runId: id,
      command: spec.command,
      account: spec.account,
      startedAt,
      finishedAt,
      status: result.status,
      error: result.error,
      requests: scope.tally.requests,
      itemsWritten: result.itemsWritten,
    };
  });
}

/**
 * Runs `body` holding the lease of every account of `spec` (a refused lease
 * throws LeaseHeldError before the body starts, or is waited for with
 * `wait`), and gives the leases back whatever happens. The body gets the
 * signal that another process took one of them over.
 */
export async function holdAccounts<T>(
  deps: Pick<RecordRunDeps, 'leases' | 'signal'>,
  spec: Pick<RunSpec, 'accounts' | 'wait'>,
  body: (lost: AbortSignal) => Promise<T>,
): Promise<T> {
  const names = spec.accounts.map(accountLease);
  const release = await deps.leases.hold(names, { wait: spec.wait, signal: deps.signal });
  try {
    return await body(deps.leases.lossSignal(names));
  } finally {
    await release();
  }
}
