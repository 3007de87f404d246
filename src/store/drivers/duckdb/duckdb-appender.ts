import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';

/**
 * Fills a table through DuckDB's Appender and closes it. `fill` appends and
 * flushes; the close flushes what is left.
 *
 * An Appender whose flush failed (a refused row) keeps its rows, and every
 * later close tries them again: the one DuckDB makes when the object is
 * garbage-collected too, on the same connection and in whatever transaction
 * it then holds, which that failure aborts ("Current transaction is
 * aborted"). So on failure the rows are cleared before the close, and the
 * first error is the one thrown: the close's own ("transaction is aborted")
 * would hide why the rows were refused.
 */
export async function withAppender<T>(
  connection: DuckDBConnection,
  table: string,
  catalog: 'temp' | undefined,
  fill: (appender: DuckDBAppender) => Promise<T> | T,
): Promise<T> {
  const appender = await connection.createAppender(table, 'main', catalog);
  let result: T;
  try {
    result = await fill(appender);
  } catch (error) {
    try {
      appender.clear();
      appender.closeSync();
    } catch {
      // the first error is the one that says what happened
    }
    throw error;
  }
  appender.closeSync();
  return result;
}
