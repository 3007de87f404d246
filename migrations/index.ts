import type { Migration } from '../src/store/migration/migration-step.js';
import * as initial from './20251122000000_initial.js';
import * as typedTime from './20261123000000_typed_time.js';
import * as cursorJson from './20261123120000_cursor-json.js';
import * as runHolder from './20261123140000_run_holder.js';
import * as verify from './20261123150000_verify.js';
import * as sessionRefresh from './20261123200000_session_refresh.js';
import * as duckdbKeyless from './20261124000000_duckdb_keyless.js';
import * as views from './20261126000000_views.js';
import * as staleness from './20261126100000_staleness.js';
import * as sessionHistory from './20261126200000_session_history.js';
import * as runThrottling from './20261126300000_run_throttling.js';
import * as historyWithoutRowid from './20261126400000_history_without_rowid.js';
import * as historyImplicitFirst from './20261126500000_history_implicit_first.js';
import * as syncHealthOnePass from './20261127000000_sync_health_one_pass.js';
import * as nonFinalIndex from './20261201000000_non_final_index.js';
import * as syncHealthIndexed from './20261201100000_sync_health_indexed.js';
import * as childrenFollowSessions from './20261202000000_children_follow_sessions.js';

/**
 * Every migration, oldest first: the one list openSink hands the drivers
 * (src/store/open-sink.ts). Imported statically rather than found by scanning
 * a directory, so the same list runs from src under vitest and from dist.
 *
 * The rule (migrations/README.md): a migration is frozen. It spells out its
 * own tables, columns, SQL types and view SQL, and never imports today's
 * definitions (src/schema/schema.ts, views.ts, verify-tables.ts,
 * refresh-tables.ts, duckdb-keyless.ts, column-sql-type.ts); once released it
 * is never edited. A change of schema is a new timestamp-named file listed
 * last here, together with the same change in schema.ts or views.ts.
 * test/store/migrations-frozen.test.ts holds both to it.
 */
export const MIGRATIONS: readonly Migration[] = [
  initial,
  typedTime,
  cursorJson,
  runHolder,
  verify,
  sessionRefresh,
  duckdbKeyless,
  views,
  staleness,
  sessionHistory,
  runThrottling,
  historyWithoutRowid,
  historyImplicitFirst,
  syncHealthOnePass,
  nonFinalIndex,
  syncHealthIndexed,
  childrenFollowSessions,
];
