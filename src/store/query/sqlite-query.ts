import Database from 'better-sqlite3';
import { UserError } from '../../errors.js';
import { QueryRefusedError } from './query-refused-error.js';
import type { ReadOnlyQuery } from './read-only-query.js';

/**
 * A SQLite file opened with SQLITE_OPEN_READONLY: SQLite itself refuses every
 * write, to the file and to anything ATTACHed. A statement that returns no
 * rows is refused before it runs, so the message says why rather than
 * "attempt to write a readonly database".
 */
export function sqliteQuery(path: string): ReadOnlyQuery {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  return {
    run: async (sql) => {
      let statement: Database.Statement;
      try {
        statement = db.prepare(sql);
      } catch (error) {
        throw new UserError('QUERY_FAILED', `sqlite: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (!statement.reader) throw new QueryRefusedError('this statement returns no rows');
      try {
        const rows = statement.raw(true).all() as unknown[][];
        return { columns: statement.columns().map((c) => c.name), rows };
      } catch (error) {
        throw new UserError('QUERY_FAILED', `sqlite: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
    close: async () => void db.close(),
  };
}
