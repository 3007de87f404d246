import { UserError } from '../../errors.js';

/**
 * A command that writes was pointed at an export made by `ivsync export`:
 * the analyst's copy, which ivsync reads as it is (status, query, a
 * read-only openTarget) but never migrates nor syncs into.
 */
export class ExportTargetError extends UserError {
  constructor(target: string) {
    super(
      'TARGET_IS_EXPORT',
      `target ${target} is an export made by ivsync export: it is read as it is (status, a read-only openTarget), ` +
        'never written; sync into a target of its own and export again (export --force replaces it)',
    );
  }
}

/**
 * A command that writes was pointed at a SQLite or DuckDB file that holds
 * tables, none of them ivsync's bookkeeping: someone's own database, which
 * ivsync adds its tables to only when told to.
 */
export class ForeignTargetError extends UserError {
  constructor(target: string) {
    super(
      'TARGET_NOT_IVSYNC',
      `target ${target} holds tables that are not ivsync's: nothing was written; ` +
        "check --db, or run ivsync migrate --force to add ivsync's tables beside them",
    );
  }
}

/** A write through a target opened with `readOnly`. */
export class ReadOnlyTargetError extends UserError {
  constructor(target: string) {
    super(
      'TARGET_READ_ONLY',
      `target ${target} was opened read-only: nothing was written; open it without readOnly to write`,
    );
  }
}

/**
 * A command that writes was pointed at a target that a newer ivsync has
 * migrated: its schema may hold what this version does not know to keep
 * (a column it would leave empty, a table it would not fill), so this
 * version writes nothing into it. Commands that only read still open it.
 */
export class NewerTargetError extends UserError {
  constructor(target: string, unknown: readonly string[]) {
    const which = unknown.length === 1 ? `migration ${unknown[0]}` : `migrations ${unknown.join(', ')}`;
    super(
      'TARGET_NEWER',
      `target ${target} was migrated by a newer ivsync (${which}, unknown to this one): nothing was written; ` +
        'run the ivsync that wrote it, or a later one',
    );
  }
}
