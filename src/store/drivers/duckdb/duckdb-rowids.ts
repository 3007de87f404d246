import type { TableDef } from '../../../schema/table-def.js';
import { selectWhereIn, updateWhereIn, type OnConflict, type Row, type SqlExecutor } from '../sql-driver.js';
import { duckdbKeyless } from './duckdb-keyless.js';
import { rowidCondition } from './duckdb-rowid-ranges.js';

/** A rowid as read (text: rows a transaction wrote have rowids from 2 ** 55, past a JS number's integers). */
function rowidOf(value: unknown, table: string): string {
  // It reaches the text of statements: digits and nothing else.
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw new Error(`${table}: rowid ${String(value)} is not one`);
  return value;
}

/**
 * Reads and updates by key of DuckDB's keyless tables (duckdb-keyless.ts),
 * which have no index to find a row by. A read of rows by key scans the key
 * column alone for the matching rows and their rowids first: most reads of a
 * backfill find none and stop there; those that find some read their columns
 * by their rowids (rowidCondition), a scan of only the row groups that hold
 * them. The sessions of one page of a refresh were written together, so
 * their rows sit in one or two places: the read of 165 of them from a table
 * of 700,000 took 9–15 ms against 480–550 ms by key (a scan of every stored
 * row's columns, `raw` among them), 300–360 ms as `rowid IN (…)`, and, in two
 * places, 546 ms as `rowid = ANY([…])` alone. An update of the
 * same rows later in the transaction (the seen marks of a refresh's merge)
 * then finds them by the rowids it knows rather than by another scan of the
 * key column: 170–190 ms at 7M rows, 7–50 ms by rowid.
 *
 * Fetching the columns by rowid too cost less time but not less memory: in
 * DuckDB 1.5 each row fetched from a row group of `raw` (FSST-compressed)
 * left memory held outside the buffer pool, an idle sync of ten million
 * sessions peaked at 780 MB (467 with the scan), and opening the file anew
 * every 250 rows did not bound it.
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
    if (values.length === 0 || !duckdbKeyless(table)) return selectWhereIn(this.#sql, table, columns, column, values);
    const list = this.#sql.whereIn(column, values);
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
    return this.#sql.all(`SELECT ${columns.join(', ')} FROM ${table} WHERE ${rowidCondition(rowids)}`);
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
    const rowids = this.#rowidsOf(table, column, values);
    if (rowids) return this.#sql.run(`UPDATE ${table} SET ${assignments} WHERE ${rowidCondition(rowids)}`, params);
    return updateWhereIn(this.#sql, table, assignments, params, column, values);
  }

  /**
   * The rowids of the stored rows that `rows`, about to replace them, have
   * the keys of, when the transaction has read every one (their DELETE then
   * needs no scan of the key column); null otherwise.
   */
  replaced(table: TableDef, rows: readonly Row[]): string[] | null {
    const [key, ...more] = table.primaryKey;
    if (key === undefined || more.length > 0 || rows.length === 0 || !duckdbKeyless(table.name)) return null;
    return this.#rowidsOf(
      table.name,
      key,
      rows.map((row) => String(row[key])),
    );
  }

  /** The rowid of every one of `values` of `table`'s `column`, or null unless the transaction knows them all. */
  #rowidsOf(table: string, column: string, values: readonly string[]): string[] | null {
    const known = this.#known.get(`${table}\u0000${column}`);
    if (!known) return null;
    const rowids: string[] = [];
    for (const value of values) {
      const rowid = known.get(value);
      if (rowid === undefined) return null;
      rowids.push(rowid);
    }
    return rowids;
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
