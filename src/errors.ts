/**
 * The small error tree of ivsync. Every error has a stable `code`; the CLI
 * renders a `UserError` as one line without a stack, anything else as a bug.
 *
 * - `UserError`: something the user can fix (bad token, unknown target).
 *   - `InputError`: a usage mistake in what the user typed (a flag, a variable,
 *     a config value): the CLI exits 2 for it, as for the parser's own.
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

/** Where a value came from: a flag, an environment variable, or a member of the config file. */
export type InputSource =
  | { readonly kind: 'flag'; readonly name: string }
  | { readonly kind: 'env'; readonly name: string }
  | { readonly kind: 'config'; readonly key: string; readonly file: string };

/** How a message names a source: `--since`, `IVS_SINCE`, `config file ./config/ivsync.yaml: crawl.since`. */
export function describeSource(source: InputSource): string {
  switch (source.kind) {
    case 'flag':
    case 'env':
      return source.name;
    case 'config':
      return source.key === '' ? `config file ${source.file}` : `config file ${source.file}: ${source.key}`;
  }
}

export interface InputFacts {
  /** Where the value came from; absent when the mistake is a combination (an interval too large for its windows). */
  source?: InputSource | undefined;
  /** The value as given; never a secret. */
  value?: unknown;
}

/**
 * A usage mistake: a value that is malformed, out of range, or names something
 * that does not exist. It carries the value and its source, and its message is
 * worded from them (`--to: ...`, `IVS_SINCE: ...`, `config file F: crawl.since: ...`),
 * so a bad `daemon.schedule` in the file is never reported as `--schedule`.
 */
export class InputError extends UserError {
  readonly source: InputSource | undefined;
  readonly value: unknown;
  /** The message without its source. */
  readonly problem: string;

  constructor(code: string, problem: string, facts: InputFacts = {}) {
    super(code, facts.source === undefined ? problem : `${describeSource(facts.source)}: ${problem}`);
    this.source = facts.source;
    this.value = facts.value;
    this.problem = problem;
  }
}

export class RetriableError extends IvsyncError {}

export class FatalError extends IvsyncError {}

/** Thrown when a run stopped on a signal and can be resumed by running the same command again. */
export class InterruptedError extends IvsyncError {
  constructor(message: string) {
    super('INTERRUPTED', message);
  }
}
