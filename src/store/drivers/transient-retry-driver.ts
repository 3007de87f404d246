import { setTimeout as delay } from 'node:timers/promises';
import { InterruptedError } from '../../errors.js';
import type { SqlDriver } from './sql-driver.js';
import { TargetUnavailableError } from './target-unavailable-error.js';
import { isTransientFault, transientRetryPauseMs } from './transient-fault.js';

export interface TransientRetryOptions {
  /** How long one transaction is tried again after a transient fault, in milliseconds; 0 fails at once. */
  budgetMs: number;
  /** Told of each retry, with the fault and the pause before it. @default nothing */
  onRetry?: (fault: { code: string | null; message: string; attempt: number; pauseMs: number }) => void;
  /**
   * Whether a refused connection is retried. Not when a command opens its
   * target: a server not listening then is more likely a wrong address than
   * a restart, and the user hears of it at once.
   * @default true
   */
  retryRefused?: boolean;
  /** Milliseconds; injected so that tests need no patching. @default Date.now */
  clock?: () => number;
  /**
   * Ends a pause between retries at once (SIGINT, SIGTERM): the transaction
   * fails with InterruptedError, so a run stopped during an outage stops now
   * rather than after the budget. It was rolled back whole, so nothing is lost.
   * @default never
   */
  signal?: AbortSignal;
}

/**
 * The driver (already turning driver errors into StoreErrors, see
 * store-error-driver.ts) with every transaction and read that meets a
 * transient fault (see transient-fault.ts) run again, whole, after a growing
 * pause, until it commits or the budget is spent. `work` runs again from the
 * start on a new connection: a page's rows and its checkpoint are committed
 * together or not at all, never half. When the budget is spent, the fault
 * leaves as a TargetUnavailableError, whose line says that the same command
 * resumes.
 */
export function withTransientRetries(driver: SqlDriver, options: TransientRetryOptions): SqlDriver {
  const clock = options.clock ?? Date.now;
  const retried = <T>(attempt: () => Promise<T>): Promise<T> => retry(attempt, options, clock);
  return {
    dialect: driver.dialect,
    transaction: (work) => retried(() => driver.transaction(work)),
    read: (work) => retried(() => driver.read(work)),
    migrate: (migrations) => retried(() => driver.migrate(migrations)),
    isMigrated: () => retried(() => driver.isMigrated()),
    close: () => driver.close(),
  };
}

async function retry<T>(attempt: () => Promise<T>, options: TransientRetryOptions, clock: () => number): Promise<T> {
  const started = clock();
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isTransientFault(error, { refused: options.retryRefused ?? true })) throw error;
      const elapsed = clock() - started;
      const pauseMs = transientRetryPauseMs(n, elapsed, options.budgetMs);
      if (pauseMs === null) throw new TargetUnavailableError(error, elapsed);
      if (options.signal?.aborted !== true) {
        options.onRetry?.({ code: error.driverCode, message: error.message, attempt: n, pauseMs });
        // An abort ends the pause at once; the check below turns it into InterruptedError.
        await delay(pauseMs, undefined, { signal: options.signal }).catch(() => undefined);
      }
      if (options.signal?.aborted === true) throw interrupted(error);
    }
  }
}

function interrupted(fault: Error): InterruptedError {
  return new InterruptedError(
    `stopped while the target was unavailable (${fault.message}); what was committed is kept: run the same ` +
      `command again to resume`,
  );
}
