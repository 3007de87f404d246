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

/** Changes a target's SQLite file directly, as another process would (waits for a writer's lock). */
export function execute(path: string, sql: string, ...params: unknown[]): number {
  const db = new Database(path, { fileMustExist: true, timeout: 10_000 });
  try {
    return db.prepare(sql).run(...params).changes;
  } finally {
    db.close();
  }
}
