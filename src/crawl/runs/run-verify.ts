import type { ResourceName } from '../../config/config.js';
import { InterruptedError, RetriableError } from '../../errors.js';
import { toIsoMicros } from '../../normalize/time.js';
import type { VerifyStatus } from '../../store/sink.js';
import { recorderDeps, runContext, type RunDeps } from './run-deps.js';
import { holdAccounts, newRunId } from './run-recorder.js';
import { verify, type VerifyOutcome } from '../verify/verify.js';

export interface VerifyRunOptions {
  /** The accounts to check, by name (every one must be in `deps.accounts`). */
  accounts: readonly string[];
  resources: readonly ResourceName[];
  /** Most requests the run may send. @default 100 (the CLI's) */
  budget: number;
  /** Picks the sample; the report names it so that `--seed` can pick the same windows again. */
  seed: string;
  /** Only windows that intersect [from, to] (epoch seconds). @default the whole stored history */
  from?: number | undefined;
  to?: number | undefined;
  repair: boolean;
  /** Wait for an account another process syncs now instead of failing. */
  wait: boolean;
  /** @default a new one */
  runId?: string | undefined;
}

/** How a verify ended, as `verify_runs` records it, with what it found. */
export interface VerifyReport extends VerifyOutcome {
  runId: string;
  /** The one account the run was limited to, or null for all. */
  account: string | null;
  startedAt: string;
  finishedAt: string;
  status: VerifyStatus;
  /** What failed or stopped the run; null when it checked what it planned (or what the budget held). */
  error: Error | null;
  budget: number;
  seed: string;
  /** Attempts the run sent (retries included). */
  requests: number;
}

const NOTHING: VerifyOutcome = {
  candidates: 0,
  windowsChecked: 0,
  sealedChecked: 0,
  partial: [],
  failed: [],
  sessionsChecked: 0,
  findings: [],
  repaired: null,
};

/** What a partial run left unchecked, as verify_runs.error says it. */
function partialNote(outcome: VerifyOutcome): string {
  const first = outcome.partial[0]!;
  return (
    `the budget ended inside ${outcome.partial.length} window(s) (first: ` +
    `${first.account}/${first.resource}@${first.windowStart}, ` +
    `${first.pagesPaged} of ~${first.pagesEstimated} pages): what was paged was compared, sessions no longer ` +
    `returned there were not looked for`
  );
}

/**
 * One verify, recorded in `verify_runs` under the leases of its accounts, so
 * that it never runs beside a sync or backfill of the same account (whose
 * writes would look like drift). Windows the service failed on fail the run
 * (the others are still checked and recorded); a signal interrupts it; a
 * lease taken over fails it with the LeaseLostError.
 */
export function runVerify(deps: RunDeps, options: VerifyRunOptions): Promise<VerifyReport> {
  const id = options.runId ?? newRunId();
  const account = options.accounts.length === 1 ? options.accounts[0]! : null;
  const now = () => toIsoMicros(deps.clock() / 1000);
  return holdAccounts(recorderDeps(deps), { accounts: options.accounts, wait: options.wait }, async (lost) => {
    const run = { id, signal: AbortSignal.any([deps.signal, lost]), tally: { requests: 0 } };
    const startedAt = now();
    await deps.sink.startVerify({
      id,
      startedAt,
      account,
      budget: options.budget,
      seed: options.seed,
      holder: deps.leases.holder,
    });
    let outcome = NOTHING;
    let status: VerifyStatus;
    let error: Error | null = null;
    try {
      outcome = await verify(runContext(deps, run, options.accounts), { ...options, runId: id });
      if (outcome.fatal !== undefined) throw outcome.fatal;
      if (run.signal.aborted) {
        status = 'interrupted';
        error = new InterruptedError(
          'verify interrupted: the windows checked so far are recorded; run it again to check a new sample',
        );
      } else if (outcome.failed.length > 0) {
        status = 'failed';
        error = new RetriableError(
          'WINDOWS_FAILED',
          `${outcome.failed.length} window(s) could not be paged (first: ${outcome.failed[0]!.error}); the ` +
            `others were checked`,
        );
      } else status = outcome.partial.length > 0 ? 'partial' : 'succeeded';
    } catch (thrown) {
      error = thrown instanceof Error ? thrown : new Error(String(thrown));
      status = error instanceof InterruptedError ? 'interrupted' : 'failed';
    }
    if (lost.aborted) {
      status = 'failed';
      error = lost.reason as Error;
    }
    const finishedAt = now();
    const note = error?.message ?? (status === 'partial' ? partialNote(outcome) : null);
    await deps.sink.finishVerify(id, {
      finishedAt,
      status,
      requests: run.tally.requests,
      windowsChecked: outcome.windowsChecked,
      sessionsChecked: outcome.sessionsChecked,
      findings: outcome.findings.length,
      repaired: outcome.repaired,
      error: note,
    });
    return {
      ...outcome,
      runId: id,
      account,
      startedAt,
      finishedAt,
      status,
      error,
      budget: options.budget,
      seed: options.seed,
      requests: run.tally.requests,
    };
  });
}
