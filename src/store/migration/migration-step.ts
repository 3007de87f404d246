import type { Dialect } from '../../schema/dialect.js';
import type { SqlTypes } from '../../schema/column-sql-type.js';
import type { ColumnType } from '../../schema/table-def.js';

/**
 * What a migration does, declared once and rendered twice: through knex for
 * SQLite and PostgreSQL (knex-ddl.ts) and as DuckDB SQL (duckdb-ddl.ts), since
 * knex has no DuckDB dialect. A migration file exports its name and step list;
 * applying it runs the steps in order, reverting runs them backwards.
 *
 * Every step carries its own DDL, frozen as the schema was when the migration
 * was written: tables, columns, SQL types and view SQL are literals of the
 * migration, never read from today's definitions (schema.ts, views.ts), so a
 * migration does the same thing on every target whenever it runs. What the
 * schema is today is the sum of the migrations; a test compares a migrated
 * target with schema.ts and views.ts (see migrations/README.md).
 *
 * Steps that create or change a table do nothing where the change is there
 * already (`ifMissing`, a column that exists, a column of its new type), since
 * releases before the steps were frozen created every table of their day in
 * the first migration.
 */
export type MigrationStep =
  /**
   * A table with its columns, primary key and indexes. `types` names each
   * column type's SQL type as the migration created it. `duckdbKey: false`
   * leaves the primary key out in DuckDB (duckdb-keyless.ts).
   */
  | {
      readonly kind: 'createTable';
      readonly table: StepTable;
      readonly types: StepTypes;
      readonly ifMissing?: boolean;
      readonly duckdbKey?: boolean;
    }
  /** A nullable column added to a table: a column added later cannot be NOT NULL without a default on existing rows. */
  | { readonly kind: 'addColumn'; readonly table: string; readonly column: string; readonly type: SqlTypes }
  | { readonly kind: 'createView'; readonly view: StepView }
  /** Drops the views that exist of `names`; reverting creates nothing (the step that created a view reverts it). */
  | { readonly kind: 'dropViews'; readonly names: readonly string[] }
  /** Rewrites data in place where the dialects' SQL differs; `down` undoes it as far as the older format can hold. */
  | {
      readonly kind: 'sql';
      readonly up: Readonly<Record<Dialect, string>>;
      readonly down: Readonly<Record<Dialect, string>>;
    }
  /**
   * Converts each column from its SQL type `from` to `to`, values cast, where
   * it is not of type `to` already. When any is converted, `views` are dropped
   * before and created again after: PostgreSQL refuses to retype a column a
   * view reads, and a view's SQL may depend on the type. Reverting converts
   * back. SQLite cannot retype a column in place: its `from` and `to` agree.
   */
  | { readonly kind: 'retypeColumns'; readonly columns: readonly ColumnRetype[]; readonly views: readonly StepView[] }
  /**
   * In DuckDB, rebuilds each table that still has its primary key without it
   * (duckdb-keyless.ts), rows kept; reverting rebuilds them with the key.
   * `types` as in createTable. SQLite and PostgreSQL keep their keys: nothing happens there.
   */
  | { readonly kind: 'duckdbKeyless'; readonly tables: readonly StepTable[]; readonly types: StepTypes }
  /**
   * In SQLite, rebuilds each table that still has a rowid as a WITHOUT ROWID
   * table, rows kept (sqlite-rebuild.ts): its primary key is then the table,
   * with no index beside it holding the key again. Reverting rebuilds it with
   * a rowid. `types` as in createTable; the tables have no other index.
   * DuckDB and PostgreSQL have no such tables: nothing happens there.
   */
  | { readonly kind: 'sqliteWithoutRowid'; readonly tables: readonly StepTable[]; readonly types: StepTypes };

/** A column as a migration created it. */
export interface StepColumn {
  readonly name: string;
  readonly type: ColumnType;
  /** Defaults to true; primary key columns are never null. */
  readonly nullable?: boolean;
}

export interface StepIndex {
  readonly columns: readonly string[];
  readonly unique?: boolean;
  /** As IndexDef's (table-def.ts): a name, and a partial index's condition. */
  readonly name?: string;
  readonly where?: string;
}

/** A table as a migration created it (schema.ts's TableDef has this shape too). */
export interface StepTable {
  readonly name: string;
  readonly columns: readonly StepColumn[];
  readonly primaryKey: readonly string[];
  readonly indexes?: readonly StepIndex[];
}

/** The SQL type of each column type in each target, as a migration created them. */
export type StepTypes = Readonly<Record<ColumnType, SqlTypes>>;

/**
 * A view as a migration created it: its SQL is portable except for `{{name}}`
 * pieces, each `fragments[name][dialect]` (view-sql.ts).
 */
export interface StepView {
  readonly name: string;
  readonly sql: string;
  readonly fragments?: Readonly<Record<string, Readonly<Record<Dialect, string>>>>;
}

/** One column's change of SQL type, in every target. */
export interface ColumnRetype {
  readonly table: string;
  readonly column: string;
  readonly from: SqlTypes;
  readonly to: SqlTypes;
}

/** One migration: what every file in migrations/ exports, and what the migrators are given. */
export interface Migration {
  readonly name: string;
  readonly steps: readonly MigrationStep[];
}
