import Database from 'better-sqlite3';

/** Reads a target's SQLite file directly, as an analyst would. */
export function query<T = Record<string, unknown>>(path: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}
