import type { OnConflict, Row, SqlExecutor } from '../sql-driver.js';
import { duckdbKeyless } from './duckdb-keyless.js';

/**
 * Stored rows whose scan costs about as much as fetching one row by its
 * rowid. A scan carrying a session table's columns reads every stored row's
 * `raw`: 175–200 ms for 700,000 authentications and 1.8 s for 7M, whatever
 * the number of ids asked for (the id column alone: 15 and 150–250 ms). A row
 * fetched by its rowid took 1.2 ms in a file of 700,000, up to 3.7 ms in one
 * of 7M. So a refresh page of 25 stored sessions costs a few reads rather
 * than a scan that grows with the history, most of an idle sync's time.
 */
const ROWS_PER_POINT = 8_000;

/**
 * Rows fetched by one statement, a UNION ALL of one-row reads: 400 rows in
 * statements of 1, 10, 25 and 100 took 815, 601, 470 and 498 ms (a longer
 * statement costs more to plan than it saves).
 */
const POINTS_PER_QUERY = 25;

/** A rowid as read (text: rows a transaction wrote have rowids from 2 ** 55, past a JS number's integers). */
function rowidOf(value: unknown, table: string): string {
  // It reaches the text of statements: digits and nothing else.
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw new Error(`${table}: rowid ${String(value)} is not one`);
  return value;
}

/**
 * Reads and updates by key of DuckDB's keyless tables (duckdb-keyless.ts),
 * which have no index to find a row by: the rowids of the rows with the keys
 * asked for are read from the key column alone, then the rows' columns are
 * fetched by rowid, and an update of the same rows later in the transaction
 * finds them by the rowids it knows rather than by a second scan of the key
 * column (170–190 ms at 7M rows, 7–50 ms by rowid).
 *
 * Rowids hold for the transaction, and only while no statement moves rows:
 * an UPDATE does not (no keyless table has an index, so DuckDB updates in
 * place), an append does not, a replace (a DELETE and an INSERT) forgets the
 * rows it replaced, any other statement all of them, and so does the
 * transaction's end.
 */
export class DuckdbRowids {
  /** Per table and key column: key to rowid, as known in the transaction under way. */
  readonly #known = new Map<string, Map<string, string>>();

  readonly #sql: Pick<SqlExecutor, 'all' | 'run' | 'whereIn'>;

  /** `sql.run` must not forget what is known (`forget` is for the executor's own `run`). */
  constructor(sql: Pick<SqlExecutor, 'all' | 'run' | 'whereIn'>) {
    this.#sql = sql;
  }

  /** `columns` of the rows of `table` whose `column` is one of `values`. */
  async select(
    table: string,
    columns: readonly string[],
    column: string,
    values: readonly string[],
  ): Promise<Record<string, unknown>[]> {
    if (values.length === 0) return [];
    const list = this.#sql.whereIn(column, values);
    const scan = () => this.#sql.all(`SELECT ${columns.join(', ')} FROM ${table} WHERE ${list.sql}`, list.params);
    if (!duckdbKeyless(table)) return scan();
    const found = await this.#sql.all(
      `SELECT CAST(rowid AS VARCHAR) AS r, ${column} AS k FROM ${table} WHERE ${list.sql}`,
      list.params,
    );
    if (found.length === 0) return [];
    const known = this.#knownOf(table, column);
    const rowids = found.map(({ r, k }) => {
      const rowid = rowidOf(r, table);
      known.set(String(k), rowid);
      return rowid;
    });
    const [size] = await this.#sql.all(
      'SELECT estimated_size AS n FROM duckdb_tables() ' +
        "WHERE database_name = current_database() AND schema_name = 'main' AND table_name = ?",
      [table],
    );
    if (rowids.length * ROWS_PER_POINT > Number(size?.n ?? 0)) return scan();
    const rows: Record<string, unknown>[] = [];
    for (let i = 0; i < rowids.length; i += POINTS_PER_QUERY) {
      const points = rowids
        .slice(i, i + POINTS_PER_QUERY)
        .map((rowid) => `SELECT ${columns.join(', ')} FROM ${table} WHERE rowid = ${rowid}`);
      rows.push(...(await this.#sql.all(points.join(' UNION ALL '))));
    }
    return rows;
  }

  /**
   * `UPDATE table SET <assignments>` of the rows whose `column` is one of
   * `values`: by their rowids when the transaction has read every one of
   * them, otherwise by `column`.
   */
  async update(
    table: string,
    assignments: string,
    params: readonly unknown[],
    column: string,
    values: readonly string[],
  ): Promise<number> {
    if (values.length === 0) return 0;
    const known = this.#known.get(`${table}\u0000${column}`);
    const rowids = known ? values.map((v) => known.get(v)) : [];
    if (known && rowids.every((r) => r !== undefined))
      return this.#sql.run(`UPDATE ${table} SET ${assignments} WHERE rowid IN (${rowids.join(', ')})`, params);
    const list = this.#sql.whereIn(column, values);
    return this.#sql.run(`UPDATE ${table} SET ${assignments} WHERE ${list.sql}`, [...params, ...list.params]);
  }

  /** `rows` were written to `table`: a replace moved those it replaced (deleted and inserted them anew). */
  wrote(table: string, rows: readonly Row[], onConflict: OnConflict): void {
    if (onConflict !== 'replace') return;
    for (const [name, known] of this.#known) {
      const [written, column] = name.split('\u0000');
      if (written === table) for (const row of rows) known.delete(String(row[column!]));
    }
  }

  /** A statement that may have moved any row ran, or the transaction ended. */
  forget(): void {
    this.#known.clear();
  }

  #knownOf(table: string, column: string): Map<string, string> {
    const name = `${table}\u0000${column}`;
    let known = this.#known.get(name);
    if (!known) this.#known.set(name, (known = new Map()));
    return known;
  }
}
