import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { PARQUET_OPTIONS, quote } from './duckdb-sql.js';

/** The files a view's pieces write beside the export, each removed when the view is done. */
export class Scratch {
  readonly #dir: string;
  readonly #prefix: string;
  readonly #files: string[] = [];

  constructor(dir: string, view: string) {
    this.#dir = dir;
    this.#prefix = `.ivsync-${view}-${randomBytes(4).toString('hex')}`;
  }

  /** A new file's path, removed by `removeAll` if not before. */
  file(name: string): string {
    const path = join(this.#dir, `${this.#prefix}-${this.#files.length}-${name}`);
    this.#files.push(path);
    return path;
  }

  /** Removes `files` (made by `file`) before the rest. */
  async remove(files: readonly string[]): Promise<void> {
    for (const file of files) await rm(file, { force: true });
  }

  async removeAll(): Promise<void> {
    await this.remove(this.#files);
  }
}

/**
 * A column cut at sorted bounds into ranges, the pieces of a view: piece i
 * holds the values from bounds[i − 1] up to bounds[i]; the first also holds
 * the nulls, the last has no end.
 */
export class Cut {
  constructor(
    readonly column: string,
    readonly bounds: readonly string[],
  ) {}

  get pieces(): number {
    return this.bounds.length + 1;
  }

  /** The condition of the pieces from `from` up to `to`. */
  range(from: number, to: number): string {
    const c = this.column;
    const lower = from === 0 ? undefined : `${c} >= ${quote(this.bounds[from - 1]!)}`;
    const upper = to >= this.pieces ? undefined : `${c} < ${quote(this.bounds[to - 1]!)}`;
    if (lower === undefined) return upper === undefined ? 'true' : `(${c} IS NULL OR ${upper})`;
    return upper === undefined ? lower : `${lower} AND ${upper}`;
  }
}

/** How ClusteredCopies treats some of the relations. */
export interface ClusterOptions {
  /** A relation copied with its rows' positions in its Parquet file (the export's table): `file_row_number` as `as`. */
  positioned?: { relation: string; file: string; as: string };
  /** Relations whose rows lie in the column's order already (the Parquet file of a view joined from its pieces). */
  inOrder?: ReadonlySet<string>;
}

/**
 * The relations a view reads, as its pieces read them: each piece's from a
 * copy of its group of pieces, about √pieces of them, with only the columns
 * `sql` names (every one where it selects `*`).
 *
 * In a crawled target the rows lie in the order of their time and the ids
 * bear no relation to it, so a range of service_ids or customer items is in
 * every row group: each piece read the whole relation, and a view's time
 * grew with the square of the history (the Parquet export of 10M sessions:
 * 703 s, against 20 s at 1M). Through group copies a relation is read once
 * per group and each piece reads its group's: 2√pieces relations' worth in
 * all. The copies are filtered scans, which stream: a sort of the relations
 * by the column would have read them once, but sorting 7M rows of 16 narrow
 * columns took 251 MB of RSS in the views' 128 MB pool (and failed in 64).
 * One group's copies are on disk at a time.
 */
export class ClusteredCopies {
  readonly #connection: DuckDBConnection;
  readonly #cut: Cut;
  readonly #relations: readonly string[];
  readonly #sql: string;
  readonly #scratch: Scratch;
  readonly #options: ClusterOptions;
  readonly #span: number;
  readonly #sources = new Map<string, string>();
  /** The columns each relation's copies keep, looked up with its first group's. */
  readonly #columns = new Map<string, string[]>();
  #files: string[] = [];
  #group = -1;

  constructor(
    connection: DuckDBConnection,
    cut: Cut,
    relations: readonly string[],
    sql: string,
    scratch: Scratch,
    options: ClusterOptions = {},
  ) {
    this.#connection = connection;
    this.#cut = cut;
    this.#relations = relations;
    this.#sql = sql;
    this.#scratch = scratch;
    this.#options = options;
    this.#span = Math.max(1, Math.ceil(Math.sqrt(cut.pieces)));
  }

  /** What each relation's name reads in piece `piece`, before its range: the copy of the piece's group. */
  async sourcesOf(piece: number): Promise<ReadonlyMap<string, string>> {
    const group = Math.floor(piece / this.#span);
    if (group !== this.#group) {
      await this.removeCopies();
      await this.#copy(group);
      this.#group = group;
    }
    return this.#sources;
  }

  /** Removes the group's copies on disk. */
  async removeCopies(): Promise<void> {
    await this.#scratch.remove(this.#files);
    this.#files = [];
    this.#group = -1;
  }

  async #copy(group: number): Promise<void> {
    const { positioned, inOrder } = this.#options;
    const range = this.#cut.range(group * this.#span, (group + 1) * this.#span);
    for (const relation of this.#relations) {
      if (inOrder?.has(relation) === true) {
        this.#sources.set(relation, `main.${relation}`);
        continue;
      }
      const at = positioned?.relation === relation ? positioned : undefined;
      const source = at === undefined ? `main.${relation}` : `read_parquet(${quote(at.file)}, file_row_number = true)`;
      const columns = await this.#columnsOf(relation, source, at?.as);
      const file = this.#scratch.file(relation);
      this.#files.push(file);
      await this.#connection.run(
        `COPY (SELECT ${columns.join(', ')} FROM ${source} WHERE ${range}) TO ${quote(file)} ${PARQUET_OPTIONS}`,
      );
      this.#sources.set(relation, `read_parquet(${quote(file)})`);
    }
  }

  /** The columns the copies of `relation` keep (looked up once), its position as `position` where it is given. */
  async #columnsOf(relation: string, source: string, position: string | undefined): Promise<readonly string[]> {
    let columns = this.#columns.get(relation);
    if (columns === undefined) {
      columns = named(await columnsOf(this.#connection, source), this.#sql, this.#cut.column);
      if (position !== undefined) columns.push(`file_row_number AS ${position}`);
      this.#columns.set(relation, columns);
    }
    return columns;
  }
}

async function columnsOf(connection: DuckDBConnection, source: string): Promise<string[]> {
  const reader = await connection.runAndReadAll(`DESCRIBE SELECT * FROM ${source}`);
  return reader.getRowObjectsJS().map((row) => String(row.column_name));
}

/**
 * The columns `sql` names as words, and `always`; all of them where it
 * selects `*`. A column missed would fail the piece's statement, never give
 * it other rows.
 */
export function named(columns: readonly string[], sql: string, always: string): string[] {
  if (/SELECT\s+(DISTINCT\s+)?\*|\.\*/i.test(sql)) return columns.filter((c) => c !== 'file_row_number');
  return columns.filter((c) => c === always || new RegExp(`\\b${c}\\b`, 'i').test(sql));
}
