/**
 * The small error tree of ivsync. Every error has a stable `code`; the CLI
 * renders a `UserError` as one line without a stack, anything else as a bug.
 *
 * - `UserError`: something the user can fix (bad flag, bad token, unknown target).
 * - `RetriableError`: a passing fault; the caller may try again.
 * - `FatalError`: the run cannot go on, and retrying will not help.
 */
export class IvsyncError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

export class UserError extends IvsyncError {}

export class RetriableError extends IvsyncError {}

export class FatalError extends IvsyncError {}

/** Thrown when a run stopped on a signal and can be resumed by running the same command again. */
export class InterruptedError extends IvsyncError {
  constructor(message: string) {
    super('INTERRUPTED', message);
  }
}
