import type { Dialect } from './dialect.js';
import type { TableDef } from './schema.js';
import type { DialectViewDef } from './views.js';

/**
 * What a migration does, declared once and rendered twice: through knex for
 * SQLite and PostgreSQL (knex-ddl.ts) and as DuckDB SQL (duckdb-ddl.ts), since
 * knex has no DuckDB dialect. A migration file exports its step list; `up`
 * applies it in order and `down` reverts it in reverse order.
 *
 * Tables come from `TABLES` in schema.ts, so the definition stays single. The
 * rule for a table appended to `TABLES` after a target already ran the initial
 * migration: add a new migration with a `createTable` step marked `ifMissing`
 * for it. On an older target it creates the table; on a new target the initial
 * migration (which creates every table `TABLES` holds when it runs) already did,
 * and the step is a no-op. A column added to an existing table follows the same
 * rule with an `addColumn` step.
 *
 * A `sql` step rewrites data in place where the dialects' SQL differs (their
 * JSON functions do); `down` undoes it as far as the older format can hold.
 */
export type MigrationStep =
  | { readonly kind: 'createTable'; readonly table: TableDef; readonly ifMissing?: boolean }
  | { readonly kind: 'addColumn'; readonly table: string; readonly column: string }
  | { readonly kind: 'createView'; readonly view: DialectViewDef }
  | { readonly kind: 'sql'; readonly up: Readonly<Record<Dialect, string>>; readonly down: Readonly<Record<Dialect, string>> };

/** One migration as the runners see it; files in migrations/ export these members. */
export interface MigrationModule {
  readonly name: string;
  readonly steps: readonly MigrationStep[];
}
