import { UserError } from '../../errors.js';

/**
 * A command that only reads was pointed at a target that is not there: a
 * database file that does not exist, or a database or schema that holds no
 * ivsync tables (never migrated). Such a command must not create it: a typo
 * in --db would otherwise read as an empty, healthy copy.
 */
export class MissingTargetError extends UserError {
  /** The target as it may be printed (a Postgres password replaced). */
  readonly target: string;

  constructor(target: string, what: 'no-file' | 'no-tables') {
    const problem =
      what === 'no-file' ? 'does not exist' : 'holds no ivsync tables (a schema or database never migrated)';
    super(
      'NO_TARGET',
      `target ${target} ${problem}: nothing to read; run backfill or sync into it first, or check --db`,
    );
    this.target = target;
  }
}
