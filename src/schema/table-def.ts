/**
 * The shape of a table definition: what src/schema/schema.ts and the table files beside it (session-tables.ts,
 * sync-tables.ts, catalog-tables.ts, ...) are written in. Apart from TABLES so those files and schema.ts need not
 * import each other.
 */

/**
 * What a column holds; column-sql-type.ts names the SQL type of each in each
 * target. `timestamp` is an instant to the microsecond: a timestamp with time
 * zone in DuckDB and PostgreSQL, ISO 8601 text (`2026-01-02T03:04:05.123456Z`)
 * in SQLite. Whatever the target, the drivers read and write it as that ISO
 * text, so the rest of ivsync compares and passes times as strings. `json`
 * keeps the text as received in every target.
 */
export type ColumnType = 'text' | 'real' | 'integer' | 'boolean' | 'json' | 'timestamp';

export interface ColumnDef {
  readonly name: string;
  readonly type: ColumnType;
  /** Defaults to true; primary key columns are never null. */
  readonly nullable?: boolean;
  readonly description: string;
  /** JSON path in a v1.4 item the value comes from, when it comes from the item. */
  readonly v14?: string;
  /** JSON path in a v2 item the value comes from, when it comes from the item. */
  readonly v2?: string;
}

export interface IndexDef {
  readonly columns: readonly string[];
  readonly unique?: boolean;
  /** Its name, where the one made of the columns would be too long (PostgreSQL keeps 63 characters). */
  readonly name?: string;
  /** A partial index's condition, SQL that SQLite and PostgreSQL read alike (DuckDB has no such indexes). */
  readonly where?: string;
}

export interface TableDef {
  readonly name: string;
  readonly description: string;
  readonly columns: readonly ColumnDef[];
  readonly primaryKey: readonly string[];
  readonly indexes?: readonly IndexDef[];
}

export interface ViewDef {
  readonly name: string;
  readonly description: string;
  /** Portable SQL (SQLite, DuckDB and PostgreSQL all accept it). */
  readonly sql: string;
}
