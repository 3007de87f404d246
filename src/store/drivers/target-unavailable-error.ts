import { StoreError } from './store-error.js';

/**
 * A passing fault of the target (see transient-fault.ts) that lasted longer
 * than the retries: the line names the fault and says what to do. Nothing
 * is half written (a transaction is retried whole or not at all), so the
 * same command resumes from the checkpoints once the database is back.
 */
export class TargetUnavailableError extends StoreError {
  /** Milliseconds the transaction was retried for. */
  readonly retriedMs: number;

  constructor(fault: StoreError, retriedMs: number) {
    const retried = retriedMs > 0 ? `, still failing after ${Math.round(retriedMs / 1000)} s of retries` : '';
    super(
      fault.dialect,
      'target',
      fault.driverCode,
      `${fault.detail}${retried}; what was committed is kept: ` +
        'run the same command again once the database is up to resume',
      fault,
    );
    this.retriedMs = retriedMs;
  }
}
