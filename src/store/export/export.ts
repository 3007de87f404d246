import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { InterruptedError, UserError } from '../../errors.js';
import { sqlType } from '../../schema/column-sql-type.js';
import { EXPORT_MARKER, EXPORT_MARKER_DDL, EXPORT_MARKER_NOTE } from './export-marker.js';
import type { ExportTarget } from './export-target.js';
import { TABLES, type TableDef } from '../../schema/schema.js';
import { VIEWS, viewSql } from '../views.js';
import { isDuckdbFile, SOURCE_CATALOG, withDuckdb, type DuckdbFileSource, type ExportSource } from './export-db.js';
import { copyView, countView, PIECE_ROWS } from './view-pieces.js';
import { countRows, PARQUET_OPTIONS, quote } from './duckdb-sql.js';
import { appendTable } from './append-table.js';
import { CSV_PIECE_BYTES } from './csv-pieces.js';
import { WorkDir } from './work-dir.js';

export type { DuckdbFileSource, ExportSource } from './export-db.js';

export interface ExportOptions {
  /**
   * Replace an export that exists already (the DuckDB file, or any of the Parquet files).
   * @default false
   */
  force?: boolean;
  /**
   * Rows read from an ExportSource per query, where it is read in key order
   * (a SQLite target; a source with `scan` hands over the driver's chunks,
   * and a DuckdbFileSource is not read in chunks): memory holds one chunk,
   * whatever the size of the table. 5,000 rows of authentications raised the
   * peak RSS of an export by about 150 MB over 1,000, for no gain in speed.
   * @default 1000
   */
  chunkRows?: number;
  /** Told after each table and view is written. */
  onProgress?: (event: ExportedRelation) => void;
  /**
   * Stops the export: between chunks, and in DuckDB's statement running then. It ends in an InterruptedError,
   * and the destination is left as it was: no file of this export is put in place, the partial ones are removed.
   */
  signal?: AbortSignal;
  /**
   * Rows a view that grows with the history reads per piece (view-pieces.ts):
   * such a view is materialized, or counted, a range of sessions at a time.
   * @default PIECE_ROWS
   */
  viewPieceRows?: number;
  /**
   * Bytes of a source table's pages each piece of CSV reads, where the source
   * has them (ExportSource.copyCsv).
   * @default CSV_PIECE_BYTES
   */
  csvPieceBytes?: number;
}

export interface ExportedRelation {
  name: string;
  kind: 'table' | 'view';
  rows: number;
  /** The Parquet file written, for parquet exports. */
  file?: string;
  /** For a view run a range of sessions at a time (view-pieces.ts), the ranges it took; absent when run whole. */
  pieces?: number;
}

export interface ExportReport {
  target: ExportTarget;
  relations: ExportedRelation[];
  /**
   * The work directories of exports that stopped without removing them (killed, or the machine down), removed from
   * beside the destination before this one began (work-dir.ts).
   */
  removed: string[];
}

/**
 * Copies every table of the schema and every analyst view out of a target
 * (SQLite, DuckDB or PostgreSQL) into an analyst copy:
 *
 * - `duckdb:PATH`: one DuckDB file holding the tables with their column types
 *   (BOOLEAN, DOUBLE, BIGINT, JSON, VARCHAR, and TIMESTAMPTZ for times,
 *   whatever the source stores them as) and the views recreated as views, so
 *   they read the copied tables. Built in the export's work directory beside
 *   PATH and renamed into place, so a failed export never leaves a
 *   half-written file.
 * - `parquet:DIR`: one `<name>.parquet` per table and per view (views
 *   materialized at export time); times are UTC timestamps in microseconds
 *   (isAdjustedToUTC). Each is written in the export's work directory, and
 *   all are renamed into place once every one is written: a failed export
 *   leaves the files of an earlier one as they were.
 *
 * Everything written before the result is in place is in one work directory
 * beside it, removed however the export ends; one a killed export left is
 * removed by the next export there (work-dir.ts, ExportReport.removed).
 *
 * Rows travel in chunks appended with DuckDB's Appender, or in pieces of CSV
 * that DuckDB reads, so memory stays flat for tables of any size. From SQLite each chunk is its own read in
 * primary key order (a SQLite table is its key's tree): an export taken while
 * a sync writes may mix rows from before and after a commit of that sync.
 * From PostgreSQL each table is read as of one instant, in the order its rows
 * lie: as CSV pieces that DuckDB reads itself (csv-pieces.ts), or where that
 * cannot be, by one cursor. A DuckDB target is read by DuckDB itself (see
 * DuckdbFileSource).
 */
export async function exportTarget(
  source: ExportSource | DuckdbFileSource,
  target: ExportTarget,
  options: ExportOptions = {},
): Promise<ExportReport> {
  const chunkRows = options.chunkRows ?? 1000;
  const pieceRows = options.viewPieceRows ?? PIECE_ROWS;
  const csvPieceBytes = options.csvPieceBytes ?? CSV_PIECE_BYTES;
  for (const [name, value] of [
    ['chunkRows', chunkRows],
    ['viewPieceRows', pieceRows],
    ['csvPieceBytes', csvPieceBytes],
  ] as const)
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number >= 1, got ${value}`);
  const signal = options.signal ?? new AbortController().signal;
  const run: ExportRun = {
    force: options.force === true,
    chunkRows,
    pieceRows,
    csvPieceBytes,
    onProgress: options.onProgress,
    signal,
  };
  try {
    return target.kind === 'duckdb'
      ? await exportDuckdb(source, target, target.path, run)
      : await exportParquet(source, target, target.dir, run);
  } catch (error) {
    // DuckDB's interrupted statement, the signal's reason or a failure it caused: the stop is what happened.
    if (!signal.aborted) throw error;
    const where = target.kind === 'duckdb' ? target.path : target.dir;
    throw new InterruptedError(`export stopped: ${where} was left as it was; run the same command again to export`);
  }
}

/** An export's settings, as exportTarget resolved them. */
interface ExportRun {
  force: boolean;
  chunkRows: number;
  pieceRows: number;
  csvPieceBytes: number;
  onProgress: ExportOptions['onProgress'];
  signal: AbortSignal;
}

async function exportDuckdb(
  source: ExportSource | DuckdbFileSource,
  target: ExportTarget,
  path: string,
  { force, chunkRows, pieceRows, csvPieceBytes, onProgress, signal }: ExportRun,
): Promise<ExportReport> {
  if (existsSync(path) && !force) {
    throw new UserError('EXPORT_EXISTS', `${path} exists already: pass --force to replace it`);
  }
  const { work, removed } = await WorkDir.make(dirname(path));
  const building = work.file('export.duckdb');
  const relations: ExportedRelation[] = [];
  try {
    await withDuckdb(
      building,
      source,
      async (db) => {
        let { connection } = db;
        const read = { chunkRows, csvPieceBytes, signal, scratch: work.file('csv') };
        for (const def of TABLES) {
          await connection.run(createTableSql(def));
          const rows = isDuckdbFile(source)
            ? await insertAttached(connection, def)
            : await appendTable(source, connection, def, read);
          relations.push(report({ name: def.name, kind: 'table', rows }, onProgress));
        }
        for (const view of VIEWS) {
          connection = await db.forView();
          await connection.run(`CREATE VIEW ${view.name} AS ${viewSql(view, 'duckdb')}`);
          const { rows, pieces } = await countView(connection, view, pieceRows, work.path);
          relations.push(report({ name: view.name, kind: 'view', rows, ...piecesOf(pieces) }, onProgress));
        }
        // Marks the file as an export: opened as a target, it is read as it is and never written (target-kind.ts).
        await connection.run(EXPORT_MARKER_DDL);
        await connection.run(`INSERT INTO ${EXPORT_MARKER} VALUES (now(), ?)`, [EXPORT_MARKER_NOTE]);
      },
      signal,
    );
    signal.throwIfAborted();
    await removeDuckdbFile(path);
    await rename(building, path);
  } finally {
    await work.remove();
  }
  return { target, relations, removed };
}

async function exportParquet(
  source: ExportSource | DuckdbFileSource,
  target: ExportTarget,
  dir: string,
  { force, chunkRows, pieceRows, csvPieceBytes, onProgress, signal }: ExportRun,
): Promise<ExportReport> {
  const names = [...TABLES.map((t) => t.name), ...VIEWS.map((v) => v.name)];
  const existing = names.map((name) => join(dir, `${name}.parquet`)).filter((file) => existsSync(file));
  if (existing.length > 0 && !force) {
    throw new UserError(
      'EXPORT_EXISTS',
      `${existing[0]} exists already${existing.length > 1 ? ` (and ${existing.length - 1} more)` : ''}: pass ` +
        `--force to replace`,
    );
  }
  const { work, removed } = await WorkDir.make(dir);
  // The rows are staged in a DuckDB file rather than in memory, so a large table spills to disk.
  const staging = work.file('staging.duckdb');
  // Each relation's file until all are written: `<name>.parquet` is then renamed into place.
  const partial = (name: string) => work.file(`${name}.parquet`);
  const relations: ExportedRelation[] = [];
  try {
    await withDuckdb(
      staging,
      source,
      async (db) => {
        const { connection } = db;
        for (const def of TABLES) {
          const file = partial(def.name);
          if (isDuckdbFile(source)) {
            // Straight from the attached file into Parquet: nothing is staged.
            await connection.run(`COPY (${attachedSelect(def)}) TO ${quote(file)} ${PARQUET_OPTIONS}`);
          } else {
            await connection.run(createTableSql(def));
            await appendTable(source, connection, def, { chunkRows, csvPieceBytes, signal, scratch: work.file('csv') });
            await connection.run(`COPY ${def.name} TO ${quote(file)} ${PARQUET_OPTIONS}`);
            // Written rows are on disk now; dropping the table keeps the staging file small.
            await connection.run(`DROP TABLE ${def.name}`);
          }
          // The views below read the tables as written.
          await connection.run(`CREATE VIEW ${def.name} AS SELECT * FROM read_parquet(${quote(file)})`);
          const rows = await countRows(connection, def.name);
          relations.push(
            report({ name: def.name, kind: 'table', rows, file: join(dir, `${def.name}.parquet`) }, onProgress),
          );
        }
        for (const view of VIEWS) {
          const connection = await db.forView();
          const file = partial(view.name);
          const pieces = await copyView(connection, view, file, pieceRows, { scratch: work.path, tableFile: partial });
          // A later view may read this one (v_session_timeline reads session_history).
          await connection.run(`CREATE VIEW ${view.name} AS SELECT * FROM read_parquet(${quote(file)})`);
          relations.push(
            report(
              {
                name: view.name,
                kind: 'view',
                rows: await countRows(connection, `read_parquet(${quote(file)})`),
                file: join(dir, `${view.name}.parquet`),
                ...piecesOf(pieces),
              },
              onProgress,
            ),
          );
        }
      },
      signal,
    );
    signal.throwIfAborted();
    for (const name of names) await rename(partial(name), join(dir, `${name}.parquet`));
  } finally {
    await work.remove();
  }
  return { target, relations, removed };
}

function piecesOf(pieces: number): Pick<ExportedRelation, 'pieces'> {
  return pieces > 1 ? { pieces } : {};
}

function report(relation: ExportedRelation, onProgress: ExportOptions['onProgress']): ExportedRelation {
  onProgress?.(relation);
  return relation;
}

/**
 * The table without its primary key: the copy is for reading, and an index
 * built while appending would grow with the table. Column types and NOT NULL
 * are kept.
 */
function createTableSql(def: TableDef): string {
  const columns = def.columns.map((c) => {
    const notNull = c.nullable === false || def.primaryKey.includes(c.name);
    return `${c.name} ${sqlType(c.type, 'duckdb')}${notNull ? ' NOT NULL' : ''}`;
  });
  return `CREATE TABLE ${def.name} (${columns.join(', ')})`;
}

/**
 * A table of the attached source with the export's column types: the
 * source was created with the same types (duckdb-ddl.ts), and the casts keep
 * the copy's types the export's whatever an older file holds.
 */
function attachedSelect(def: TableDef): string {
  const columns = def.columns.map((c) => `CAST(${c.name} AS ${sqlType(c.type, 'duckdb')}) AS ${c.name}`);
  return `SELECT ${columns.join(', ')} FROM ${SOURCE_CATALOG}.main.${def.name}`;
}

async function insertAttached(connection: DuckDBConnection, def: TableDef): Promise<number> {
  const result = await connection.run(`INSERT INTO ${def.name} ${attachedSelect(def)}`);
  return Number(result.rowsChanged);
}

async function removeDuckdbFile(path: string): Promise<void> {
  await rm(path, { force: true });
  await rm(`${path}.wal`, { force: true });
  // What DuckDB spilled, should a failed export have left it (export-db.ts).
  await rm(`${path}.tmp`, { recursive: true, force: true });
}
