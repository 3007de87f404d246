/** The columns and rows of one query, as the database gave them. */
export interface QueryResult {
  columns: string[];
  rows: unknown[][];
}

/**
 * A database opened so that nothing can be written through it: a SQLite or
 * DuckDB file opened read-only, Postgres in a read-only transaction that is
 * rolled back, Parquet files read in place. One statement per call.
 */
export interface ReadOnlyQuery {
  run(sql: string): Promise<QueryResult>;
  close(): Promise<void>;
}
