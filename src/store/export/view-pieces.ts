import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { viewSql, type DialectViewDef } from '../views.js';
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
 * its pieces in order are the view in order.
 */
export interface ViewPieces {
  /** The column of every relation in `relations` that the ranges cut. */
  column: string;
  /** What the view reads, each restricted to the piece's range. */
  relations: readonly string[];
  /** The view's rows are ordered by `column` first: its pieces are joined in their order (its rows are narrow). */
  ordered?: boolean;
}

export const VIEW_PIECES: Readonly<Record<string, ViewPieces>> = {
  v_latest_authentications: { column: 'customer_item_id', relations: ['authentications'] },
  session_history: { column: 'service_id', relations: ['session_versions', 'authentications', 'fingerprints'] },
  v_result_turnaround: { column: 'service_id', relations: ['session_history', 'authentications', 'fingerprints'] },
  v_session_timeline: { column: 'service_id', relations: ['session_history'], ordered: true },
};

/**
 * Rows read per piece by default. With the export's 128 MB view pool, at
 * 10M sessions (7M authentications) a piece of a million authentications ran
 * out of memory at once; pieces of 250,000 held, but the instance's RSS grew
 * with a piece's size (v_session_timeline: 406 MB at 1M, 402 at 250,000, 250
 * at 100,000). The whole export of views there took 225 s with 100,000
 * against 201 s with 250,000: every piece scans the relations again.
 */
export const PIECE_ROWS = 100_000;

/** The schema of a piece's restricted relations, searched before the export's own (`main`). */
const PIECE_SCHEMA = 'ivsync_piece';

/** Rows sampled to place the boundaries of the ranges. */
const SAMPLE_ROWS = 10_000;

/**
 * Runs `work` with the names `view` reads bound to the rows of one of its
 * ranges (pieceRanges): a schema of restricted views, searched first.
 */
async function inPiece(
  connection: DuckDBConnection,
  view: string,
  range: string,
  work: () => Promise<void>,
): Promise<void> {
  const spec = VIEW_PIECES[view];
  if (spec === undefined) throw new Error(`${view} is not cut into pieces`);
  await connection.run(`CREATE SCHEMA ${PIECE_SCHEMA}`);
  try {
    for (const relation of spec.relations) {
      await connection.run(`CREATE VIEW ${PIECE_SCHEMA}.${relation} AS SELECT * FROM main.${relation} WHERE ${range}`);
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
 * WHERE conditions that split the rows `view` reads by ranges of its column
 * (VIEW_PIECES) into pieces of about `pieceRows` rows, in the column's order;
 * nulls go with the first. None when the view is not cut or its rows fit one
 * piece. The boundaries are quantiles of a sample, so a piece may be larger
 * or smaller than asked, but not by the history's size.
 */
async function pieceRanges(connection: DuckDBConnection, view: string, pieceRows: number): Promise<string[]> {
  const spec = VIEW_PIECES[view];
  if (spec === undefined) return [];
  const { column, relations } = spec;
  const union = relations.map((r) => `SELECT ${column} AS k FROM main.${r}`).join(' UNION ALL ');
  const pieces = Math.ceil((await countRows(connection, `(${union}) u`)) / pieceRows);
  if (pieces <= 1) return [];
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
  if (bounds.length === 0) return [];
  return [
    `(${column} IS NULL OR ${column} < ${quote(bounds[0]!)})`,
    ...bounds.slice(1).map((bound, i) => `${column} >= ${quote(bounds[i]!)} AND ${column} < ${quote(bound)}`),
    `${column} >= ${quote(bounds[bounds.length - 1]!)}`,
  ];
}

/**
 * A view materialized into one Parquet file: in one statement, or, for a
 * view cut into pieces (VIEW_PIECES), a file per piece, then those files
 * in order into one (a copy that holds a row group at a time).
 */
export async function copyView(
  connection: DuckDBConnection,
  view: DialectViewDef,
  file: string,
  pieceRows: number,
): Promise<number> {
  const sql = viewSql(view, 'duckdb');
  const ranges = await pieceRanges(connection, view.name, pieceRows);
  if (ranges.length === 0) {
    await connection.run(`COPY (${sql}) TO ${quote(file)} ${PARQUET_OPTIONS}`);
    return 1;
  }
  const parts = ranges.map((_, i) =>
    join(dirname(file), `.ivsync-${view.name}-${randomBytes(4).toString('hex')}-${i}`),
  );
  try {
    for (const [i, range] of ranges.entries()) {
      await inPiece(connection, view.name, range, () =>
        connection.run(`COPY (${sql}) TO ${quote(parts[i]!)} ${PARQUET_OPTIONS}`).then(() => undefined),
      );
    }
    const list = parts.map(quote).join(', ');
    if (VIEW_PIECES[view.name]!.ordered !== true) {
      await connection.run(`COPY (SELECT * FROM read_parquet([${list}])) TO ${quote(file)} ${PARQUET_OPTIONS}`);
      return ranges.length;
    }
    // Rows in the order of the pieces; DuckDB cuts row groups by bytes only when it may reorder.
    await connection.run('SET preserve_insertion_order = true');
    try {
      await connection.run(
        `COPY (SELECT * FROM read_parquet([${list}])) TO ${quote(file)} (FORMAT parquet, ROW_GROUP_SIZE 32768)`,
      );
    } finally {
      await connection.run('SET preserve_insertion_order = false');
    }
    return ranges.length;
  } finally {
    for (const part of parts) await rm(part, { force: true });
  }
}

/**
 * The rows of a view of the export's DuckDB file, counted piece by piece
 * where it is cut (VIEW_PIECES), and the pieces counted.
 */
export async function countView(
  connection: DuckDBConnection,
  view: DialectViewDef,
  pieceRows: number,
): Promise<{ rows: number; pieces: number }> {
  const ranges = await pieceRanges(connection, view.name, pieceRows);
  if (ranges.length === 0) return { rows: await countRows(connection, view.name), pieces: 1 };
  let rows = 0;
  for (const range of ranges) {
    await inPiece(connection, view.name, range, async () => {
      rows += await countRows(connection, `(${viewSql(view, 'duckdb')}) v`);
    });
  }
  return { rows, pieces: ranges.length };
}
