import type { Dialect } from './dialect.js';
import type { SqlTypeOverrides, SqlTypes } from './column-sql-type.js';
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
 * A change of column types is a `retypeColumns` step, which converts the
 * columns of a target created before the change and leaves the others (of
 * the new type already) alone.
 */
export type MigrationStep =
  /** `types`: the SQL types created where they differ from today's (column-sql-type.ts); for a target as an earlier release created it. */
  | { readonly kind: 'createTable'; readonly table: TableDef; readonly ifMissing?: boolean; readonly types?: SqlTypeOverrides }
  /**
   * `type`: the column's SQL type in each target, frozen in the migration; then
   * the column is added as written there (nullable), whatever the schema says
   * today. Without it the type comes from today's table definition.
   */
  | { readonly kind: 'addColumn'; readonly table: string; readonly column: string; readonly type?: SqlTypes }
  | { readonly kind: 'createView'; readonly view: DialectViewDef }
  | { readonly kind: 'sql'; readonly up: Readonly<Record<Dialect, string>>; readonly down: Readonly<Record<Dialect, string>> }
  /**
   * Converts each column from its SQL type `from` to `to`, values cast, where
   * it is not of type `to` already. When any is converted, `views` are dropped
   * before and created again after: PostgreSQL refuses to retype a column a
   * view reads, and a view's SQL may depend on the type. Reverting converts
   * back. SQLite cannot retype a column in place: its `from` and `to` agree.
   */
  | { readonly kind: 'retypeColumns'; readonly columns: readonly ColumnRetype[]; readonly views: readonly DialectViewDef[] }
  /**
   * In DuckDB, rebuilds each table that still has its primary key without it
   * (duckdb-keyless.ts), rows kept; reverting rebuilds them with the key.
   * SQLite and PostgreSQL keep their keys: nothing happens there.
   */
  | { readonly kind: 'duckdbKeyless'; readonly tables: readonly string[] };

/** One column's change of SQL type, in every target. */
export interface ColumnRetype {
  readonly table: string;
  readonly column: string;
  readonly from: SqlTypes;
  readonly to: SqlTypes;
}

/** One migration as the runners see it; files in migrations/ export these members. */
export interface MigrationModule {
  readonly name: string;
  readonly steps: readonly MigrationStep[];
}
