import type { DuckDBConnection } from '@duckdb/node-api';
import { LATEST_AUTHENTICATION_COLUMNS, LATEST_AUTHENTICATION_KEYS, viewSql, type DialectViewDef } from '../views.js';
import { ClusteredCopies, Cut, Scratch } from './clustered-copies.js';
import { countRows, PARQUET_OPTIONS, quote } from './duckdb-sql.js';

/**
 * The analyst views whose work grows with the history, and how each is cut
 * into pieces that give the same rows: every relation the view reads is
 * restricted to one range of `column`, and no row of the view depends on rows
 * outside its own range (the sessions of a service_id, the lookups of a
 * customer_item_id). v_latest_authentications ranks every authentication of
 * a customer item; at 7M authentications its window and the ids it keeps
 * outgrew the view pool (192 MB) in one statement, and the 10M export failed.
 * Ranges, not hashes: v_session_timeline is ordered by service_id first, so
 * its pieces in order are the view in order. The pieces read clustered
 * copies of the relations (clustered-copies.ts), not the relations.
 */
export interface ViewPieces {
  /** The column of every relation in `relations` that the ranges cut. */
  column: string;
  /** What the view reads, each restricted to the piece's range. */
  relations: readonly string[];
  /**
   * The view's rows are ordered by `column` first. Its pieces, joined in their order as every view's but one with
   * `picks` (joinParts), are then the view in order.
   */
  ordered?: boolean;
  /** The view's rows are rows of one table picked by key. */
  picks?: Picks;
}

/**
 * A view `SELECT columns FROM table WHERE key IN (keys)`, `key` unique: its
 * rows are rows of `table`, picked. They are wide (`raw`), so they are not
 * sorted: the pieces pick the keys from a clustered copy of the narrow
 * columns `keys` reads, with each row's position, and the picked rows are
 * then read by position, a range at a time, in the table's own order.
 */
export interface Picks {
  table: string;
  key: string;
  keys: string;
  columns: string;
}

export const VIEW_PIECES: Readonly<Record<string, ViewPieces>> = {
  v_latest_authentications: {
    column: 'customer_item_id',
    relations: ['authentications'],
    picks: {
      table: 'authentications',
      key: 'service_id',
      keys: LATEST_AUTHENTICATION_KEYS,
      columns: LATEST_AUTHENTICATION_COLUMNS,
    },
  },
  session_history: { column: 'service_id', relations: ['session_versions', 'authentications', 'fingerprints'] },
  v_result_turnaround: { column: 'service_id', relations: ['session_history', 'authentications', 'fingerprints'] },
  v_session_timeline: { column: 'service_id', relations: ['session_history'], ordered: true },
};

/**
 * Rows read per piece by default. With the export's 128 MB view pool, at
 * 10M sessions (7M authentications) a piece of a million authentications ran
 * out of memory at once; pieces of 250,000 held, but the instance's RSS grew
 * with a piece's size (v_session_timeline: 406 MB at 1M, 402 at 250,000, 250
 * at 100,000). A piece reads its range of clustered copies
 * (clustered-copies.ts), so more pieces cost little more.
 */
export const PIECE_ROWS = 100_000;

/** The schema of a piece's restricted relations, searched before the export's own (`main`). */
const PIECE_SCHEMA = 'ivsync_piece';

/** Rows sampled to place the boundaries of the ranges. */
const SAMPLE_ROWS = 10_000;

/** The row's position in a picked table's Parquet file, in its clustered copy. */
const POSITION = 'ivsync_row';

/**
 * Runs `work` with each name in `sources` bound to the rows of its source
 * (what can follow FROM) within `range`: a schema of restricted views,
 * searched first.
 */
async function inPiece(
  connection: DuckDBConnection,
  sources: ReadonlyMap<string, string>,
  range: string,
  work: () => Promise<unknown>,
): Promise<void> {
  await connection.run(`CREATE SCHEMA ${PIECE_SCHEMA}`);
  try {
    for (const [relation, source] of sources) {
      await connection.run(`CREATE VIEW ${PIECE_SCHEMA}.${relation} AS SELECT * FROM ${source} AS r WHERE ${range}`);
    }
    // USE sets the search path too: it is put back as it was, and the piece's is spelled in the current database.
    const reader = await connection.runAndReadAll(
      "SELECT current_database() AS db, current_setting('search_path') AS path",
    );
    const { db, path } = reader.getRowObjectsJS()[0] as { db: string; path: string };
    await connection.run(`SET search_path = ${quote(`${db}.${PIECE_SCHEMA},${db}.main`)}`);
    try {
      await work();
    } finally {
      await connection.run(`SET search_path = ${quote(path)}`);
    }
  } finally {
    await connection.run(`DROP SCHEMA IF EXISTS ${PIECE_SCHEMA} CASCADE`);
  }
}

/**
 * The ranges of its column (VIEW_PIECES) that split the rows a view reads
 * into pieces of about `pieceRows` rows, in the column's order; nulls go
 * with the first. None when its rows fit one piece. The boundaries are
 * quantiles of a sample, so a piece may be larger or smaller than asked, but
 * not by the history's size.
 */
async function cutOf(connection: DuckDBConnection, spec: ViewPieces, pieceRows: number): Promise<Cut | undefined> {
  const { column, relations } = spec;
  const union = relations.map((r) => `SELECT ${column} AS k FROM main.${r}`).join(' UNION ALL ');
  const pieces = Math.ceil((await countRows(connection, `(${union}) u`)) / pieceRows);
  if (pieces <= 1) return undefined;
  const sampled = await connection.runAndReadAll(
    `SELECT k FROM (SELECT k FROM (${union}) u WHERE k IS NOT NULL USING SAMPLE reservoir(${SAMPLE_ROWS} ROWS)) ` +
      'ORDER BY k',
  );
  const sample = sampled.getRowObjectsJS().map((r) => String(r.k));
  const bounds: string[] = [];
  for (let i = 1; i < pieces; i++) {
    const bound = sample[Math.floor((i * sample.length) / pieces)];
    if (bound !== undefined && bound !== bounds[bounds.length - 1]) bounds.push(bound);
  }
  return bounds.length === 0 ? undefined : new Cut(column, bounds);
}

/** Runs `work` in each piece of `cut`, its relations read through `copies`. */
async function eachPiece(
  connection: DuckDBConnection,
  cut: Cut,
  copies: ClusteredCopies,
  work: () => Promise<unknown>,
): Promise<void> {
  try {
    for (let piece = 0; piece < cut.pieces; piece++) {
      await inPiece(connection, await copies.sourcesOf(piece), cut.range(piece, piece + 1), work);
    }
  } finally {
    await copies.removeCopies();
  }
}

/** Where a view's pieces write, and where a table's Parquet file is (for a view with `picks`). */
export interface PieceFiles {
  /** The directory of the scratch files: the export's own. */
  scratch: string;
  /** The Parquet file of a table of the export, whose rows a view with `picks` reads by position. */
  tableFile?: (table: string) => string;
}

/**
 * A view materialized into one Parquet file: in one statement, or, for a
 * view cut into pieces (VIEW_PIECES), a file per piece over clustered copies
 * of its relations, then those files into one (a copy that holds a row group
 * at a time).
 */
export async function copyView(
  connection: DuckDBConnection,
  view: DialectViewDef,
  file: string,
  pieceRows: number,
  files: PieceFiles,
): Promise<number> {
  const sql = viewSql(view, 'duckdb');
  const spec = VIEW_PIECES[view.name];
  const cut = spec === undefined ? undefined : await cutOf(connection, spec, pieceRows);
  if (spec === undefined || cut === undefined) {
    await connection.run(`COPY (${sql}) TO ${quote(file)} ${PARQUET_OPTIONS}`);
    return 1;
  }
  const scratch = new Scratch(files.scratch, view.name);
  try {
    if (spec.picks !== undefined) {
      const tableFile = files.tableFile?.(spec.picks.table);
      if (tableFile === undefined) throw new Error(`${view.name} picks rows of a table with no Parquet file`);
      await copyPicked(connection, spec.relations, spec.picks, { cut, pieceRows, scratch, tableFile }, file);
      return cut.pieces;
    }
    const parts: string[] = [];
    const copyPart = () => {
      const part = scratch.file('piece');
      parts.push(part);
      return connection.run(`COPY (${sql}) TO ${quote(part)} ${PARQUET_OPTIONS}`);
    };
    // A view cut by the same column was joined in its pieces' order (joinParts): its file is clustered already.
    const inOrder = new Set(spec.relations.filter((r) => cutInOrder(r, spec.column)));
    const copies = new ClusteredCopies(connection, cut, spec.relations, sql, scratch, { inOrder });
    await eachPiece(connection, cut, copies, copyPart);
    await joinParts(connection, parts, file);
    return cut.pieces;
  } finally {
    await scratch.removeAll();
  }
}

/** How a view with `picks` is cut. */
interface PickedCut {
  cut: Cut;
  pieceRows: number;
  scratch: Scratch;
  tableFile: string;
}

/**
 * A view with `picks` into `file`: its keys picked piece by piece, their
 * rows' positions written to a file; from those, a flag per row of the
 * table, in the table's order, a range of `pieceRows` positions at a time;
 * then the table's rows whose flag is set, in one statement that reads the
 * table's Parquet file beside the flags (a POSITIONAL JOIN: no hash of the
 * picked positions, which at 10M sessions does not fit the view pool, and
 * the wide rows written once). Each flag carries its position, and a row
 * read beside another position fails the copy rather than pick wrongly.
 */
async function copyPicked(
  connection: DuckDBConnection,
  relations: readonly string[],
  picks: Picks,
  { cut, pieceRows, scratch, tableFile }: PickedCut,
  file: string,
): Promise<void> {
  const positioned = { relation: picks.table, file: tableFile, as: POSITION };
  const copies = new ClusteredCopies(connection, cut, relations, pickSql(picks, picks.key), scratch, {
    positioned,
  });
  const pickedFiles: string[] = [];
  await eachPiece(connection, cut, copies, () => {
    const file = scratch.file('picked');
    pickedFiles.push(file);
    return connection.run(`COPY (${pickSql(picks, POSITION)}) TO ${quote(file)} ${PARQUET_OPTIONS}`);
  });
  // In the order of the positions, so that each range of them reads its own row groups.
  const picked = scratch.file('picked');
  await connection.run(
    `COPY (SELECT * FROM read_parquet([${pickedFiles.map(quote).join(', ')}]) ORDER BY ${POSITION}) ` +
      `TO ${quote(picked)} ${PARQUET_OPTIONS}`,
  );
  await scratch.remove(pickedFiles);
  const table = `read_parquet(${quote(tableFile)}, file_row_number = true)`;
  const rows = await countRows(connection, table);
  const flagParts: string[] = [];
  for (let from = 0; from < rows; from += pieceRows) {
    const to = Math.min(rows, from + pieceRows);
    const part = scratch.file('flags');
    flagParts.push(part);
    await connection.run(
      `COPY (SELECT range AS position, range IN (SELECT ${POSITION} FROM read_parquet(${quote(picked)}) ` +
        `WHERE ${POSITION} >= ${from} AND ${POSITION} < ${to}) AS picked FROM range(${from}, ${to}) ORDER BY range) ` +
        `TO ${quote(part)} ${PARQUET_OPTIONS}`,
    );
  }
  const flags = scratch.file('flags');
  await joinParts(connection, flagParts, flags);
  await scratch.remove(flagParts);
  const columns = picks.columns.split(', ').map((c) => `t.${c}`);
  const misplaced = "error('the picked rows of a view were read out of their positions')";
  await connection.run(
    `COPY (SELECT ${columns.join(', ')} FROM ${table} t POSITIONAL JOIN read_parquet(${quote(flags)}) f ` +
      `WHERE f.picked AND (CASE WHEN t.file_row_number = f.position THEN true ELSE ${misplaced} END)) ` +
      `TO ${quote(file)} ${PARQUET_OPTIONS}`,
  );
}

/** `select` of the rows of `picks.table` that its keys pick. */
function pickSql(picks: Picks, select: string): string {
  return `SELECT ${select} FROM ${picks.table} WHERE ${picks.key} IN (${picks.keys})`;
}

/** A view joined from its pieces in their order, cut by `column`: its Parquet file is in ranges of `column`. */
function cutInOrder(view: string, column: string): boolean {
  const spec = VIEW_PIECES[view];
  return spec !== undefined && spec.column === column && spec.picks === undefined;
}

/**
 * The pieces' files into one, in their order. A view in its pieces' order lies in ranges of its column, so a later
 * view cut by it reads it as it is (cutInOrder): it is ordered where the view is, and clustered where it is not.
 */
async function joinParts(connection: DuckDBConnection, parts: readonly string[], file: string) {
  const list = parts.map(quote).join(', ');
  // Rows in the order of the pieces; DuckDB cuts row groups by bytes only when it may reorder.
  await connection.run('SET preserve_insertion_order = true');
  try {
    await connection.run(
      `COPY (SELECT * FROM read_parquet([${list}])) TO ${quote(file)} (FORMAT parquet, ROW_GROUP_SIZE 32768)`,
    );
  } finally {
    await connection.run('SET preserve_insertion_order = false');
  }
}

/**
 * The rows of a view of the export's DuckDB file, counted piece by piece
 * where it is cut (VIEW_PIECES), and the pieces counted. A view with `picks`
 * counts the keys it picks.
 */
export async function countView(
  connection: DuckDBConnection,
  view: DialectViewDef,
  pieceRows: number,
  scratchDir: string,
): Promise<{ rows: number; pieces: number }> {
  const spec = VIEW_PIECES[view.name];
  const cut = spec === undefined ? undefined : await cutOf(connection, spec, pieceRows);
  if (spec === undefined || cut === undefined) return { rows: await countRows(connection, view.name), pieces: 1 };
  const sql = spec.picks === undefined ? viewSql(view, 'duckdb') : pickSql(spec.picks, spec.picks.key);
  const scratch = new Scratch(scratchDir, view.name);
  try {
    let rows = 0;
    await eachPiece(connection, cut, new ClusteredCopies(connection, cut, spec.relations, sql, scratch), async () => {
      rows += await countRows(connection, `(${sql}) v`);
    });
    return { rows, pieces: cut.pieces };
  } finally {
    await scratch.removeAll();
  }
}
