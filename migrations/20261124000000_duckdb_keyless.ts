import type { MigrationStep } from '../src/store/migration/migration-step.js';
import * as initial from './20251122000000_initial.js';
import { TYPES } from './20261123000000_typed_time.js';

/**
 * A DuckDB target's session tables without their primary key index, whose
 * size bounded the memory a backfill needs (see src/store/drivers/duckdb/duckdb-keyless.ts).
 * A table without its key already is left alone. SQLite and PostgreSQL keep
 * their keys.
 */
export const name = '20261124000000_duckdb_keyless';

const SESSION_TABLES = ['authentications', 'fingerprints', 'session_text_fields', 'session_images', 'session_warnings'];

export const steps: readonly MigrationStep[] = [
  { kind: 'duckdbKeyless', tables: initial.TABLES.filter((t) => SESSION_TABLES.includes(t.name)), types: TYPES },
];
