import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * A Parquet writer holds a whole row group before it writes it out; DuckDB's
 * default (122,880 rows) is hundreds of MB for the wide tables. Row groups
 * are cut by bytes as well as rows, so memory is bounded by neither the table
 * nor its row width.
 */
export const PARQUET_OPTIONS = `(FORMAT parquet, ROW_GROUP_SIZE 32768, ROW_GROUP_SIZE_BYTES '16MB')`;

/** The rows of a relation (a name, or a parenthesized query with its alias). */
export async function countRows(connection: DuckDBConnection, relation: string): Promise<number> {
  const reader = await connection.runAndReadAll(`SELECT count(*) AS n FROM ${relation}`);
  return Number(reader.getRowObjectsJS()[0]?.n ?? 0);
}

/** A path or value as a DuckDB string literal. */
export function quote(path: string): string {
  return `'${path.replace(/'/g, "''")}'`;
}
