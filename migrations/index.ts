import type { Knex } from 'knex';
import type { MigrationModule } from '../src/store/migration-step.js';
import * as initial from './20251122000000_initial.js';
import * as typedTime from './20261123000000_typed_time.js';
import * as cursorJson from './20261123120000_cursor-json.js';
import * as runHolder from './20261123140000_run_holder.js';
import * as verify from './20261123150000_verify.js';
import * as sessionRefresh from './20261123200000_session_refresh.js';
import * as duckdbKeyless from './20261124000000_duckdb_keyless.js';
import * as sessionHistory from './20261126000000_session_history.js';

/** A migration file: its steps (what DuckDB renders) and knex's `up`/`down`. */
export interface MigrationFile extends MigrationModule {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * Every migration, oldest first. Imported statically rather than found by
 * scanning a directory, so the same list runs from src under vitest and from
 * dist after tsc. A new migration is a new timestamp-named file listed here.
 */
export const MIGRATIONS: readonly MigrationFile[] = [initial, typedTime, cursorJson, runHolder, verify, sessionRefresh, duckdbKeyless, sessionHistory];
