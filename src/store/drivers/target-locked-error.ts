import { UserError } from '../../errors.js';

/**
 * Another process has the database file open, and the target lets only one
 * process at a time open it (DuckDB locks the whole file for as long as an
 * instance lives). The holder is named as DuckDB reports it.
 */
export class TargetLockedError extends UserError {
  readonly target: string;
  /** The holding process as the driver names it: `/usr/bin/node (PID 4242)`. */
  readonly holder: string;

  constructor(target: string, holder: string) {
    super(
      'TARGET_LOCKED',
      `target ${target} is open in another process (${holder}); DuckDB lets one process at a time open a file: ` +
        `run again when it has ended (backfill, sync and verify wait for it with --wait)`,
    );
    this.target = target;
    this.holder = holder;
  }
}
